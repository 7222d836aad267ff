import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { AuthorizationServerMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { AppError, type RemoteSignInInfo } from "@/lib/contracts";
import { cardSignIn, CardSignInError, type CardSignIn } from "@/lib/remote-agents/card-sign-in";
import type { RemoteAgentRef } from "@/lib/remote-agents/remote-ref";
import { RemoteAgentError } from "@/lib/remote-agents/transport";
import {
  finishSignIn,
  refreshSignIn,
  startSignIn,
  type SignInAttempt,
  type SignInDeps,
  type SignInTarget,
} from "@/server/oauth/person-sign-in";
import { hostOf, type ReadCard } from "./card-cache";

/** The store's key of a person's sign-in to a remote agent; MCP servers' names have no ":". */
export const REMOTE_KEY_PREFIX = "a2a:";
export const remoteSignInKey = (agent: string) => `${REMOTE_KEY_PREFIX}${agent}`;

/** The longest the card's read may take when a sign-in starts. */
const CARD_WAIT_MS = 15_000;

/**
 * The operator's remote agents that each person signs in to (`a2a.oauth`): where to sign
 * in comes from the agent's card (its OAuth or OpenID Connect scheme) or, when the card
 * names none, from its endpoint's protected resource metadata (RFC 9728). Tokens are kept
 * per person as MCP sign-ins are (sealed, in `McpOAuth`, under `a2a:<agent>`), asked for
 * the agent's endpoint alone (a resource indicator), and sent only there.
 */
export interface RemoteSignIns {
  /** The agents people sign in to, and whether this person has. */
  list(ownerId: string): Promise<RemoteSignInInfo[]>;
  signIn(ownerId: string, agent: string, redirectUrl: string): Promise<{ authorizationUrl: string } | null>;
  /** Finishes an attempt the callback already took (its key is `a2a:<agent>`). */
  finish(attempt: SignInAttempt & { serverName: string }, code: string): Promise<void>;
  signOut(ownerId: string, agent: string): Promise<void>;
  /** This person's access token for the agent; undefined when they have not signed in. */
  token(ownerId: string, agent: string): Promise<string | undefined>;
  /** The agent refused the token: a refreshed one, or undefined when the person must sign in again. */
  refresh(ownerId: string, agent: string): Promise<string | undefined>;
}

export interface RemoteSignInDeps extends SignInDeps {
  /** Reads the agent's card as its runs do (an operator's definition: the card's own host may be private). */
  readCard(cardUrl: string, signal: AbortSignal): Promise<ReadCard>;
}

export function createRemoteSignIns(agents: readonly { name: string; ref: RemoteAgentRef }[], deps: RemoteSignInDeps): RemoteSignIns {
  const byName = new Map(agents.filter((a) => a.ref.oauth).map((a) => [a.name, a.ref]));

  const refOf = (agent: string): RemoteAgentRef => {
    const ref = byName.get(agent);
    if (!ref) throw new AppError("not_found", `No remote agent "${agent}" that people sign in to.`);
    return ref;
  };

  async function target(agent: string): Promise<SignInTarget> {
    const ref = refOf(agent);
    const label = `the remote agent "${agent}"`;
    let read: ReadCard;
    let asked: CardSignIn | undefined;
    try {
      read = await deps.readCard(ref.cardUrl, AbortSignal.timeout(CARD_WAIT_MS));
      asked = cardSignIn(read.card.securitySchemes, ref.cardUrl);
    } catch (error) {
      if (error instanceof RemoteAgentError) throw new AppError("unavailable", `Signing in to ${label} failed: ${error.message}`);
      if (error instanceof CardSignInError)
        throw new AppError("unavailable", `Signing in to ${label} failed: its card is not usable: ${error.message}`);
      throw error;
    }
    const scopes = typeof ref.oauth === "object" && ref.oauth.scopes?.length ? ref.oauth.scopes : (asked?.scopes ?? []);
    return {
      key: remoteSignInKey(agent),
      label,
      url: read.endpoint.url,
      setting: ref.oauth!,
      resource: read.endpoint.url,
      ...(scopes.length ? { scopes } : {}),
      ...(asked ? { discovery: discoveryOf(asked) } : {}),
    };
  }

  const load = async (ownerId: string, agent: string) => (await deps.store.load(ownerId, remoteSignInKey(agent))).tokens?.access_token;

  return {
    async list(ownerId) {
      const signedIn = new Set(await deps.store.signedIn(ownerId));
      return [...byName].map(([name, ref]) => ({ name, host: hostOf(ref.cardUrl), signedIn: signedIn.has(remoteSignInKey(name)) }));
    },
    async signIn(ownerId, agent, redirectUrl) {
      return startSignIn(await target(agent), deps, ownerId, redirectUrl);
    },
    async finish(attempt, code) {
      await finishSignIn(await target(attempt.serverName.slice(REMOTE_KEY_PREFIX.length)), deps, attempt, code);
    },
    async signOut(ownerId, agent) {
      refOf(agent);
      await deps.store.clear(ownerId, remoteSignInKey(agent), "all");
    },
    token: (ownerId, agent) => load(ownerId, agent),
    async refresh(ownerId, agent) {
      const refreshed = await refreshSignIn(await target(agent), deps, ownerId).catch(() => false);
      return refreshed ? load(ownerId, agent) : undefined;
    },
  };
}

/**
 * What the SDK is told of the authorization server: its issuer, where it publishes its
 * metadata; or, for a card that gives only the flow's two addresses, that metadata as the
 * card states it (such a server registers no clients, so it needs a configured client).
 */
function discoveryOf(asked: CardSignIn): OAuthDiscoveryState {
  if (asked.kind === "discover") return { authorizationServerUrl: asked.issuer };
  const issuer = new URL(asked.tokenUrl).origin;
  const metadata: AuthorizationServerMetadata = {
    issuer,
    authorization_endpoint: asked.authorizationUrl,
    token_endpoint: asked.tokenUrl,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
  };
  return { authorizationServerUrl: issuer, authorizationServerMetadata: metadata };
}
