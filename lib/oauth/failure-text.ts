/**
 * A sign-in's failure as a person reads it. The OAuth client validates what the servers
 * answer with zod, whose error message is its issues as JSON; a server that answers no JSON
 * fails in the parser's words, which quote the answer. Both come from a stranger, so the
 * text names the fields at fault (not their values) and is cut to a length a menu can show.
 */
export function signInFailureText(error: unknown): string {
  if (isValidationError(error)) {
    const fields = error.issues.slice(0, 3).map((issue) => {
      const at = issue.path.map(String).join(".") || "the answer";
      return `${clip(at, 60)}: ${clip(issue.message, 120)}`;
    });
    return `a server answered what OAuth does not allow (${fields.join("; ")})`;
  }
  if (error instanceof SyntaxError) return "a server's answer was not JSON";
  return clip(error instanceof Error ? error.message : String(error), MAX_LENGTH);
}

const MAX_LENGTH = 500;

interface ValidationError {
  issues: { path: PropertyKey[]; message: string }[];
}

/** A ZodError of whichever zod the SDK bundles, told by its shape. */
function isValidationError(error: unknown): error is ValidationError {
  if (!(error instanceof Error) || error.name !== "ZodError") return false;
  const issues: unknown = (error as { issues?: unknown }).issues;
  return (
    Array.isArray(issues) &&
    issues.every((i: { path?: unknown; message?: unknown }) => Array.isArray(i?.path) && typeof i.message === "string")
  );
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
