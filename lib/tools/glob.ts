import picomatch from "picomatch";
import { ToolError } from "./types";

/** Longest glob accepted. picomatch compiles a glob to a backtracking RegExp, so keep it short. */
export const MAX_GLOB_LENGTH = 200;

/**
 * Paths here are always `/`-separated (whatever the OS); `*` also matches dotfiles, as
 * it always did here; `[!abc]` is a negated class (`posix`); an unbalanced `{` or `[` is
 * an error rather than a literal; no extglobs (`+(a|b)`).
 */
const OPTIONS: picomatch.PicomatchOptions = {
  windows: false,
  dot: true,
  posix: true,
  noextglob: true,
  strictBrackets: true,
  // Escaping parentheses (below) at most doubles the length.
  maxLength: 2 * MAX_GLOB_LENGTH,
};

const OPENER: Record<string, string> = { "}": "{", "]": "[" };

/**
 * A glob without `/` matches file names anywhere (`*.md`); one with `/` matches the path
 * from the workspace root or from the folder being searched. `*` and `?` stay within one
 * folder, `**` spans folders (`src/**\/*.ts` also matches `src/a.ts`), `{ts,tsx}`
 * alternates, `[abc]` / `[!abc]` are character classes.
 */
export function createGlobFilter(glob: string): (workspacePath: string, searchPath: string) => boolean {
  if (glob.length > MAX_GLOB_LENGTH) throw new ToolError(`The glob is longer than ${MAX_GLOB_LENGTH} characters.`);
  let isMatch: (path: string) => boolean;
  try {
    // Parentheses are plain characters in file names ("report (1).pdf"), not regex groups.
    isMatch = picomatch(glob.replace(/[()]/g, "\\$&"), OPTIONS);
  } catch (error) {
    const closing = /Missing closing: "(.)"/.exec((error as Error).message)?.[1];
    if (closing) throw new ToolError(`The glob "${glob}" has an unclosed "${OPENER[closing] ?? closing}".`);
    throw new ToolError(`The glob "${glob}" is not valid (${(error as Error).message}).`);
  }
  if (!glob.includes("/")) {
    return (workspacePath) => isMatch(workspacePath.slice(workspacePath.lastIndexOf("/") + 1));
  }
  return (workspacePath, searchPath) => isMatch(workspacePath) || isMatch(searchPath);
}
