import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { AppError } from "@/lib/contracts";
import { signInFailureText } from "@/lib/oauth/failure-text";
import type { OAuthSetting } from "@/lib/oauth/setting";
import { StoredOAuthProvider, type ProviderScope } from "./client-provider";
import { oauthFetch } from "./oauth-fetch";
import type { McpOAuthStore } from "./oauth-store";

/**
 * A person's OAuth sign-in to one server that acts for them, whatever the server speaks:
 * an MCP server (server/mcp/oauth/personal-server.ts) or a remote A2A agent
 * (server/remote-agents/remote-sign-in.ts). The SDK does the protocol (discovery,
 * registration, PKCE, the code exchange, refresh); this keeps what it needs in the store
 * and words every failure for the person.
 */
export interface SignInTarget {
  /** The store's key for it (see StoredOAuthProvider). */
  key: string;
  /** How a message names it: `MCP server "tracker"`, `the remote agent "warehouse"`. */
  label: string;
  /** The protected resource's address: the operator named its host, so the guard lets it through. */
  url: string;
  setting: OAuthSetting;
  /** Where its authorization server is, when it says so itself (see ProviderScope.discovery). */
  discovery?: OAuthDiscoveryState;
  /** The resource its tokens are for, when no metadata names one (see ProviderScope.resource). */
  resource?: string;
  /** Scopes to ask for when neither the setting nor the resource's metadata names any. */
  scopes?: string[];
}

export interface SignInDeps {
  store: McpOAuthStore;
  /** Reads the variable a configured client's `clientSecretEnv` names. */
  lookup: (name: string) => string | undefined;
  now?: () => number;
  /** The fetch under the guard (tests count requests); default: the global one. */
  fetch?: typeof fetch;
}

/** What the callback took from the store: the attempt of one person at one target. */
export interface SignInAttempt {
  ownerId: string;
  codeVerifier: string;
  redirectUrl: string;
}

export function providerScope(target: SignInTarget, deps: SignInDeps, ownerId: string, redirectUrl: string): ProviderScope {
  const { setting } = target;
  const secret = typeof setting === "object" && setting.clientSecretEnv ? deps.lookup(setting.clientSecretEnv) : undefined;
  return {
    ownerId,
    serverName: target.key,
    setting,
    redirectUrl,
    store: deps.store,
    ...(secret ? { clientSecret: secret } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(target.discovery ? { discovery: target.discovery } : {}),
    ...(target.resource ? { resource: target.resource } : {}),
    ...(target.scopes?.length ? { scopes: target.scopes } : {}),
  };
}

/**
 * Starts a sign-in: the address the browser goes to (the attempt's state and verifier are
 * stored), or null when a stored refresh token already signed the person in again.
 */
export async function startSignIn(
  target: SignInTarget,
  deps: SignInDeps,
  ownerId: string,
  redirectUrl: string,
): Promise<{ authorizationUrl: string } | null> {
  const provider = new StoredOAuthProvider(providerScope(target, deps, ownerId, redirectUrl), "signing-in");
  const result = await authorize(target, deps, provider, {});
  if (result === "AUTHORIZED") return null;
  if (!provider.authorizationUrl)
    throw new AppError("internal", `${capital(target.label)}: the sign-in produced no authorization address.`);
  return { authorizationUrl: provider.authorizationUrl.href };
}

/** The authorization server sent the person back with `code`: exchanges it for their tokens. */
export async function finishSignIn(target: SignInTarget, deps: SignInDeps, attempt: SignInAttempt, code: string): Promise<void> {
  const provider = new StoredOAuthProvider(providerScope(target, deps, attempt.ownerId, attempt.redirectUrl), {
    finishing: { codeVerifier: attempt.codeVerifier },
  });
  await authorize(target, deps, provider, { authorizationCode: code });
}

/**
 * The resource refused the person's token: refreshes it with their refresh token. True when
 * a fresh token is stored; false when the person must sign in again (no refresh token, or
 * the authorization server refused it, which clears the tokens).
 */
export async function refreshSignIn(target: SignInTarget, deps: SignInDeps, ownerId: string): Promise<boolean> {
  const stored = await deps.store.load(ownerId, target.key);
  if (!stored.tokens?.refresh_token || !stored.redirectUrl) return false;
  const provider = new StoredOAuthProvider(providerScope(target, deps, ownerId, stored.redirectUrl), "connection");
  try {
    return (await authorize(target, deps, provider, {})) === "AUTHORIZED" && !provider.needsSignIn;
  } catch {
    return false;
  }
}

/** Ours are 43 characters; anything far longer is not worth a query. */
const MAX_STATE_LENGTH = 128;

/**
 * The attempt `state` names, spent once, if `ownerId` started it: another browser bringing
 * the code back gets nothing, nor does a state already used or expired.
 */
export async function takeOwnAttempt(
  deps: Pick<SignInDeps, "store" | "now">,
  ownerId: string,
  state: string,
): Promise<SignInAttempt & { serverName: string }> {
  const attempt = state.length <= MAX_STATE_LENGTH ? await deps.store.takeAttempt(state, new Date(deps.now?.() ?? Date.now())) : undefined;
  if (!attempt || attempt.ownerId !== ownerId) {
    throw new AppError(
      "bad_request",
      "This sign-in link is unknown, was already used, expired, or was started by someone else. Sign in again.",
    );
  }
  return attempt;
}

/** Runs the SDK's flow; an address the guard refused fails it, whatever the SDK would have tried next. */
async function authorize(target: SignInTarget, deps: SignInDeps, provider: StoredOAuthProvider, options: { authorizationCode?: string }) {
  const refused: Error[] = [];
  const fetchFn = oauthFetch(target.url, deps.fetch, (error) => refused.push(error));
  let failure: unknown;
  try {
    const result = await auth(provider, { serverUrl: target.url, fetchFn, ...options });
    if (!refused.length) return result;
  } catch (error) {
    failure = error;
  }
  const why = refused[0] ?? failure;
  throw new AppError("unavailable", `Signing in to ${target.label} failed: ${signInFailureText(why)}`);
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
