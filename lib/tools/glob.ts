import { ToolError } from "./types";

const REGEX_SPECIAL = /[.+^$()|\\]/;

/**
 * Compiles a file glob to an anchored RegExp over `/`-separated paths: `*` and `?` stay
 * within one folder, `**` spans folders (`src/**\/*.ts` also matches `src/a.ts`),
 * `{ts,tsx}` alternates, `[abc]` / `[!abc]` are character classes.
 */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slashAfter = glob[i + 2] === "/";
        out += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
      } else {
        const body = glob.slice(i + 1, close).replace(/^!/, "^").replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = close;
      }
    } else if (c === "{") {
      braces += 1;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces -= 1;
      out += ")";
    } else if (c === "," && braces > 0) {
      out += "|";
    } else {
      out += REGEX_SPECIAL.test(c) || c === "{" || c === "}" || c === "]" ? `\\${c}` : c;
    }
  }
  if (braces > 0) throw new ToolError(`The glob "${glob}" has an unclosed "{".`);
  try {
    return new RegExp(`^${out}$`);
  } catch {
    throw new ToolError(`The glob "${glob}" is not valid.`);
  }
}

/**
 * A glob without `/` matches file names anywhere (`*.md`); one with `/` matches the path
 * from the workspace root or from the folder being searched.
 */
export function createGlobFilter(glob: string): (workspacePath: string, searchPath: string) => boolean {
  const regex = globToRegExp(glob);
  if (!glob.includes("/")) {
    return (workspacePath) => regex.test(workspacePath.slice(workspacePath.lastIndexOf("/") + 1));
  }
  return (workspacePath, searchPath) => regex.test(workspacePath) || regex.test(searchPath);
}
