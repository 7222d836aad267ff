/**
 * Names of MCP tools as agents see them: `<server>.<tool>`. A server's tool names are
 * untrusted: anything outside letters, digits, `_` and `-` becomes `_`, and a name that is
 * empty, absurdly long or left with no letter or digit is skipped. The server prefix keeps
 * them apart from the built-ins (which never hold a dot) and from other servers.
 */

/** MCP's own advice for tool names is 1-64 characters; longer ones are refused, not cut (cutting could merge two). */
export const MAX_MCP_TOOL_NAME = 64;
const UNSAFE = /[^A-Za-z0-9_-]+/g;
const MEANINGFUL = /[A-Za-z0-9]/;

export type ToolNameVerdict = { ok: true; name: string; changed: boolean } | { ok: false; reason: string };

/** The safe form of one tool name from a server (without its server prefix). */
export function sanitizeToolName(raw: unknown): ToolNameVerdict {
  if (typeof raw !== "string" || raw.length === 0) return { ok: false, reason: "it has no name" };
  if (raw.length > MAX_MCP_TOOL_NAME) return { ok: false, reason: `its name is longer than ${MAX_MCP_TOOL_NAME} characters` };
  const name = raw.replace(UNSAFE, "_");
  if (!MEANINGFUL.test(name)) return { ok: false, reason: "its name has no letter or digit" };
  return { ok: true, name, changed: name !== raw };
}

export function namespacedToolName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/** What the UI and logs may print of an untrusted name: no control characters, bounded length. */
export function printableName(raw: unknown): string {
  const text = typeof raw === "string" ? raw : (JSON.stringify(raw) ?? String(raw));
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
