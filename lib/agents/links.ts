import type { DefinitionRef } from "@/lib/contracts";

export const AGENTS_PATH = "/agents";

/** The agents page, or one stored definition's version there (what a run's panel links to). */
export function agentsHref(ref?: DefinitionRef): string {
  return ref ? `${AGENTS_PATH}?id=${encodeURIComponent(ref.id)}&v=${ref.version}` : AGENTS_PATH;
}
