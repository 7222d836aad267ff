/**
 * The addresses of the MCP sign-in routes (docs/mcp-auth.md), shared by the server's
 * routes and the tool-servers menu so neither spells them alone.
 */
export const MCP_OAUTH_CALLBACK = "/api/mcp/oauth/callback";
export const MCP_SIGN_IN_PATH = /^\/api\/mcp\/([a-z][a-z0-9_-]{0,31})\/(sign-in|sign-out)$/;

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
  return server ? { ok: true, server: server.slice(0, 32) } : null;
}
