/**
 * The addresses of the sign-in routes (docs/mcp-auth.md, docs/remote-agents.md), shared by
 * the server's routes and the tool-servers menu so neither spells them alone. One callback
 * serves MCP servers and remote agents; its address stays the one clients registered.
 */
export const MCP_OAUTH_CALLBACK = "/api/mcp/oauth/callback";
export const MCP_SIGN_IN_PATH = /^\/api\/mcp\/([a-z][a-z0-9_-]{0,31})\/(sign-in|sign-out)$/;

export const REMOTE_SIGN_IN_PATH = /^\/api\/remote-agents\/([a-z][a-z0-9_-]{0,39})\/(sign-in|sign-out)$/;

/** What the callback names a remote agent by (the key its sign-ins are kept under). */
export const REMOTE_TARGET_PREFIX = "a2a:";

export function remoteSignInRoute(agent: string, action: "sign-in" | "sign-out"): string {
  return `/api/remote-agents/${encodeURIComponent(agent)}/${action}`;
}

export function mcpSignInRoute(server: string, action: "sign-in" | "sign-out"): string {
  return `/api/mcp/${encodeURIComponent(server)}/${action}`;
}

/** What `POST /api/mcp/<server>/sign-in` answers: where the browser goes, or null when a stored sign-in already did it. */
export interface McpSignInAnswer {
  authorizationUrl: string | null;
}

/** The query parameters the callback sends the browser back with. */
export const SIGNED_IN_PARAM = "mcp_signed_in";
export const SIGN_IN_ERROR_PARAM = "mcp_error";

export type SignInOutcome = { ok: true; server: string } | { ok: false; message: string };

/** How the sign-in the browser just came back from went, read from the page's query; null when it did not come from one. */
export function signInOutcome(search: string): SignInOutcome | null {
  const params = new URLSearchParams(search);
  const error = params.get(SIGN_IN_ERROR_PARAM);
  if (error) return { ok: false, message: error.slice(0, 500) };
  const server = params.get(SIGNED_IN_PARAM);
  return server ? { ok: true, server: server.slice(0, 48) } : null;
}

/** What the menu says once back: a remote agent is named as one. */
export function signedInText(target: string): string {
  return target.startsWith(REMOTE_TARGET_PREFIX)
    ? `Signed in to the remote agent ${target.slice(REMOTE_TARGET_PREFIX.length)}.`
    : `Signed in to ${target}.`;
}
