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
 * picomatch turns each `*` into a lazy `[^/]*?`, and k of them in one path segment
 * backtrack like O(n^(k+1)) against a name that almost matches: on a 255-character name,
 * 3 take ~20 ms, 4 over a second, `*a*a*a*a*a*a*ab` ~25 s of the main event loop.
 */
export const MAX_SEGMENT_STARS = 3;
/** Wildcards (`*`, `**`, `?`) in the whole glob. */
export const MAX_GLOB_WILDCARDS = 8;

/**
 * A glob without `/` matches file names anywhere (`*.md`); one with `/` matches the path
 * from the workspace root or from the folder being searched. `*` and `?` stay within one
 * folder, `**` spans folders (`src/**\/*.ts` also matches `src/a.ts`), `{ts,tsx}`
 * alternates, `[abc]` / `[!abc]` are character classes.
 */
export function createGlobFilter(glob: string): (workspacePath: string, searchPath: string) => boolean {
  if (glob.length > MAX_GLOB_LENGTH) throw new ToolError(`The glob is longer than ${MAX_GLOB_LENGTH} characters.`);
  checkWildcards(glob);
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

/** Refuses globs whose wildcards would make matching one name slow (see MAX_SEGMENT_STARS). */
function checkWildcards(glob: string): void {
  let wildcards = 0;
  let segmentStars = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "[") i = Math.max(i, glob.indexOf("]", i + 2));
    else if (c === "/") segmentStars = 0;
    else if (c === "?") wildcards++;
    else if (c === "*") {
      // `**` is one wildcard.
      while (glob[i + 1] === "*") i++;
      wildcards++;
      segmentStars++;
      if (segmentStars > MAX_SEGMENT_STARS) {
        throw new ToolError(
          `The glob "${glob}" has more than ${MAX_SEGMENT_STARS} "*" in one path segment, which can take seconds per name; use fewer.`,
        );
      }
    }
  }
  if (wildcards > MAX_GLOB_WILDCARDS)
    throw new ToolError(`The glob "${glob}" has more than ${MAX_GLOB_WILDCARDS} wildcards (* ? **); use fewer.`);
}
