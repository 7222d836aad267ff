import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import {
  MCP_OAUTH_CALLBACK,
  MCP_SIGN_IN_PATH,
  REMOTE_SIGN_IN_PATH,
  REMOTE_TARGET_PREFIX,
  SIGN_IN_ERROR_PARAM,
  SIGNED_IN_PARAM,
  type McpSignInAnswer,
} from "@/lib/oauth/sign-in-routes";
import { errorAnswer } from "@/server/http/error-answer";
import { originAllowed } from "@/server/http/origin";
import { createKeyedRateLimiter, type RateLimit } from "@/server/realtime/rate-limit";
import type { SignInTargets } from "./sign-in-targets";

/**
 * A person's sign-ins to MCP servers and remote agents over HTTP, behind the app's sign-in
 * like the rest of the API (docs/mcp-auth.md, docs/remote-agents.md):
 *
 *   POST /api/mcp/<server>/sign-in   → { authorizationUrl } (the browser goes there), or null when already signed in
 *   POST /api/remote-agents/<agent>/sign-in → the same, for a remote agent
 *   GET  /api/mcp/oauth/callback?code&state → finishes either, then sends the browser back to the app
 *   POST /api/mcp/<server>/sign-out, /api/remote-agents/<agent>/sign-out → forgets this person's tokens
 *
 * The POSTs are refused cross-site (as every state-changing route is) and counted per
 * person: each sign-in makes requests to remote servers. The callback is a top-level
 * navigation from the authorization server, so it carries no Origin of ours; what binds
 * it is its state, which must have been issued to this very person, and works once.
 */
export interface SignInHttpDeps {
  signIns: SignInTargets;
  allowedOrigins: readonly string[];
  /** PUBLIC_URL: the address the authorization server sends the browser back to; else the request's own origin. */
  publicUrl?: string;
  rateLimit?: RateLimit;
  log?: Pick<Logger, "error" | "warn">;
}

/** Ten sign-in attempts at once, one more every six seconds, per person. */
const DEFAULT_RATE_LIMIT: RateLimit = { burst: 10, perSecond: 1 / 6 };

export function signInRoutes(deps: SignInHttpDeps) {
  const limiter = createKeyedRateLimiter(deps.rateLimit ?? DEFAULT_RATE_LIMIT);
  /** Answers `/api/mcp/…` and `/api/remote-agents/…`; false for any other path. */
  return async function handleSignIn(req: IncomingMessage, res: ServerResponse, url: URL, userId: string): Promise<boolean> {
    if (url.pathname === MCP_OAUTH_CALLBACK) {
      req.resume();
      await callback(req, res, url, userId, deps);
      return true;
    }
    const mcp = MCP_SIGN_IN_PATH.exec(url.pathname);
    const remote = mcp ? null : REMOTE_SIGN_IN_PATH.exec(url.pathname);
    const match = mcp ?? remote;
    if (!match) return false;
    req.resume();
    let status = 200;
    let result: unknown;
    try {
      if (req.method !== "POST") throw new AppError("not_found", "No such API route.");
      if (!originAllowed(req, deps.allowedOrigins)) throw new AppError("unauthorized", "Cross-site requests are not allowed.");
      if (!(await limiter.take(userId))) throw new AppError("rate_limited", "Too many sign-in attempts; wait a moment and try again.");
      const [, name, action] = match;
      const target = remote ? `${REMOTE_TARGET_PREFIX}${name}` : name!;
      if (action === "sign-out") {
        await deps.signIns.signOut(userId, target);
        result = { signedOut: true };
      } else {
        const started = await deps.signIns.signIn(userId, target, `${origin(req, deps.publicUrl)}${MCP_OAUTH_CALLBACK}`);
        result = { authorizationUrl: started?.authorizationUrl ?? null } satisfies McpSignInAnswer;
      }
    } catch (error) {
      ({ status, body: result } = errorAnswer(error, "mcp sign-in", url.pathname, deps.log));
    }
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
    res.end(JSON.stringify(result));
    return true;
  };
}

/** Finishes the sign-in and sends the browser to the app, saying how it went in the address (the tool servers menu reads it). */
async function callback(req: IncomingMessage, res: ServerResponse, url: URL, userId: string, deps: SignInHttpDeps): Promise<void> {
  const back = new URL("/", "http://app");
  try {
    const refused = url.searchParams.get("error");
    if (refused) {
      const why = url.searchParams.get("error_description");
      throw new AppError("bad_request", `The authorization server refused: ${refused}${why ? ` (${why.slice(0, 200)})` : ""}`);
    }
    const state = url.searchParams.get("state");
    const code = url.searchParams.get("code");
    if (!state || !code) throw new AppError("bad_request", "The authorization server sent no code or state back.");
    back.searchParams.set(SIGNED_IN_PARAM, await deps.signIns.finishSignIn(userId, state, code));
  } catch (error) {
    const { body } = errorAnswer(error, "mcp sign-in", url.pathname, deps.log);
    back.searchParams.set(SIGN_IN_ERROR_PARAM, body.error.message);
  }
  res.writeHead(303, { location: `${back.pathname}${back.search}`, "cache-control": "no-store" });
  res.end();
}

function origin(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const proto = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  return `${proto}://${req.headers.host ?? "localhost"}`;
}
