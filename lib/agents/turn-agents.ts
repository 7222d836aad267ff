import { operatorKey } from "@/lib/contracts";
import type { SubagentDefinition } from "@/lib/agent/definitions";

/** A stored definition at its newest version, as a turn or a list reads it. */
export interface StoredDefinition {
  id: string;
  version: number;
  ownerId: string;
  shared: boolean;
  definition: SubagentDefinition;
  updatedAt: string;
}

/**
 * What a turn of `ownerId`'s chat may use besides the operator's definitions: the shared
 * ones, then the person's own (an own definition replaces a shared one of the same name,
 * as either replaces the operator's), without those the chat turned off. The operator's
 * turned off are named for the runtime, which holds them.
 */
export function turnDefinitions(
  stored: readonly StoredDefinition[],
  ownerId: string,
  off: readonly string[],
  operatorNames: readonly string[],
): { add: StoredDefinition[]; offNames: string[] } {
  const offKeys = new Set(off);
  const usable = stored.filter((d) => !offKeys.has(d.id) && (d.shared || d.ownerId === ownerId));
  const shared = usable.filter((d) => d.shared && d.ownerId !== ownerId);
  const own = usable.filter((d) => !shared.includes(d));
  return {
    add: [...shared, ...own],
    offNames: operatorNames.filter((name) => offKeys.has(operatorKey(name))),
  };
}
