import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";

/** Folders that are noise to an agent exploring a project; listed, never descended into. */
export const SKIPPED_FOLDERS = new Set([".git", "node_modules"]);
const MAX_DEPTH = 32;

export interface WalkEntry {
  absolute: string;
  dirent: Dirent;
  depth: number;
  /** A skipped folder (see SKIPPED_FOLDERS), reported but not entered. */
  skipped: boolean;
}

/**
 * Depth-first, name-sorted walk that never follows symbolic links: a link could lead out
 * of the workspace or into a cycle, so links are reported as entries and left alone.
 */
export async function* walk(dir: string, recursive: boolean, depth = 0): AsyncGenerator<WalkEntry> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dirent of entries) {
    const absolute = path.join(dir, dirent.name);
    const skipped = dirent.isDirectory() && SKIPPED_FOLDERS.has(dirent.name);
    yield { absolute, dirent, depth, skipped };
    if (recursive && dirent.isDirectory() && !skipped && depth < MAX_DEPTH) {
      yield* walk(absolute, recursive, depth + 1);
    }
  }
}
