import Link from "next/link";
import type { DefinitionRef } from "@/lib/contracts";
import { agentsHref } from "@/lib/agents/links";

/** A run's definition made in the app, at the version it ran ("v2"), linking to that version. */
export function DefinitionVersion({ definition, name }: { definition: DefinitionRef; name: string }) {
  return (
    <Link
      href={agentsHref(definition)}
      data-testid="subagent-definition-version"
      title={`${name}: the version of its definition this run used`}
      className="rounded px-1.5 py-0.5 text-xs font-medium text-zinc-600 tabular-nums hover:bg-zinc-100 hover:text-sky-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-sky-400"
    >
      v{definition.version}
    </Link>
  );
}
