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
