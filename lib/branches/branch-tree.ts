/**
 * A chat's turns as a tree. Editing a prompt or regenerating an answer starts a turn beside
 * the one it replaces (same parent), so the old one is kept whole; the chat shows one
 * branch at a time, the path from its first turn to a leaf. Pure: the server reads the
 * links from MongoDB and the browser gets the result (docs/architecture.md, "Branches").
 *
 * A turn names its parent only when it is not the turn started just before it
 * (`parentTurnId`, null for a new first turn): a chat that never branched stores nothing
 * new, and a chat from before branches reads as the one branch it is.
 */

export interface TurnLink {
  turnId: string;
  /** Absent: the turn started just before it (none for the first). Null: a first turn. */
  parentTurnId?: string | null;
}

export interface BranchTree {
  /** Each turn's parent (null for a first turn), in start order. */
  parents: Map<string, string | null>;
  /** Each turn's children in start order; the key "" holds the first turns. */
  children: Map<string, string[]>;
  /** Start order, oldest first. */
  order: string[];
}

/** `links` in start order (createdAt, then id: the order history reads turns in). */
export function branchTree(links: readonly TurnLink[]): BranchTree {
  const parents = new Map<string, string | null>();
  const children = new Map<string, string[]>();
  const order: string[] = [];
  let previous: string | null = null;
  for (const link of links) {
    if (parents.has(link.turnId)) continue;
    // A parent the tree does not hold (never stored, or deleted) makes the turn a first one.
    let parent = link.parentTurnId === undefined ? previous : link.parentTurnId;
    if (parent !== null && !parents.has(parent)) parent = null;
    parents.set(link.turnId, parent);
    const key = parent ?? "";
    children.set(key, [...(children.get(key) ?? []), link.turnId]);
    order.push(link.turnId);
    previous = link.turnId;
  }
  return { parents, children, order };
}

/** The turns from the first to `turnId`, oldest first; empty for a turn the tree does not hold. */
export function pathTo(tree: BranchTree, turnId: string): string[] {
  const path: string[] = [];
  let at: string | null | undefined = turnId;
  while (at !== null && at !== undefined && tree.parents.has(at)) {
    path.push(at);
    at = tree.parents.get(at);
    if (path.length > tree.order.length) break; // a cycle cannot form from start order; bounded anyway
  }
  return path.reverse();
}

/** The newest leaf under `turnId`: its newest child's newest child, and so on (where a switch to `turnId` lands). */
export function newestLeaf(tree: BranchTree, turnId: string): string {
  let at = turnId;
  for (let i = 0; i <= tree.order.length; i++) {
    const next = tree.children.get(at)?.at(-1);
    if (!next) return at;
    at = next;
  }
  return at;
}

/** A turn's alternatives, itself included, oldest first (one entry: it has none). */
export function siblingsOf(tree: BranchTree, turnId: string): string[] {
  if (!tree.parents.has(turnId)) return [];
  return tree.children.get(tree.parents.get(turnId) ?? "") ?? [turnId];
}

export interface BranchView {
  /** The branch in view, oldest first. */
  path: string[];
  /** For each turn of the path that has alternatives: all of them, oldest first. */
  siblings: Record<string, string[]>;
}

/**
 * The branch in view: the path to `leaf` (the turn last viewed or started), extended to the
 * newest leaf below it; without one, or for a turn the tree does not hold, the branch of
 * the newest turn.
 */
export function branchView(tree: BranchTree, leaf: string | undefined): BranchView {
  const start = leaf !== undefined && tree.parents.has(leaf) ? leaf : tree.order.at(-1);
  if (start === undefined) return { path: [], siblings: {} };
  const path = pathTo(tree, newestLeaf(tree, start));
  const siblings: Record<string, string[]> = {};
  for (const turnId of path) {
    const all = siblingsOf(tree, turnId);
    if (all.length > 1) siblings[turnId] = all;
  }
  return { path, siblings };
}

/**
 * What `parentTurnId` a new turn under `parent` records: nothing when `parent` is the
 * newest turn (it follows it anyway), else the parent itself (null: a new first turn).
 */
export function recordedParent(tree: BranchTree, parent: string | null): { parentTurnId?: string | null } {
  const newest = tree.order.at(-1) ?? null;
  return parent === newest ? {} : { parentTurnId: parent };
}
