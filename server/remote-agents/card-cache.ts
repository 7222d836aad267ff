import { AgentCardError, cardEndpoint, checkAgentCard, type AgentCard, type AgentEndpoint } from "@/lib/remote-agents/card";
import { RemoteAgentError } from "@/lib/remote-agents/transport";
import { AddressRefusedError, guardedFetch, ResponseTooLargeError } from "@/server/net/guarded-fetch";

/** Reads a card URL; the default goes through guardedFetch with the card's bounds. */
export type CardFetch = (cardUrl: string, options: { allowHosts: readonly string[]; signal: AbortSignal }) => Promise<Response>;

export const CARD_MAX_BYTES = 256 * 1024;
export const CARD_TIMEOUT_MS = 10_000;
export const DEFAULT_CARD_TTL_MS = 5 * 60_000;

export const fetchCardGuarded: CardFetch = (cardUrl, { allowHosts, signal }) =>
  guardedFetch({ allowHosts, maxBytes: CARD_MAX_BYTES, timeoutMs: CARD_TIMEOUT_MS })(cardUrl, {
    // A server that speaks both versions answers its 1.0 card to this header, its 0.3 one without it.
    headers: { accept: "application/json", "a2a-version": "1.0" },
    signal,
  });

/** A card Delegate can use, and where its JSON-RPC requests go. */
export interface ReadCard {
  card: AgentCard;
  endpoint: AgentEndpoint;
}

/**
 * The hosts a call may reach at private addresses: the operator's list, and the card's
 * own host when the definition is the operator's (trusted).
 */
export function allowedHostsFor(cardUrl: string, trusted: boolean, allowedHosts: readonly string[]): string[] {
  return trusted ? [...allowedHosts, new URL(cardUrl).hostname] : [...allowedHosts];
}

/** The host a person recognises in an error: the card URL's. */
export function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

/** A failure to reach a remote, as a person reads it; an abort stays the caller's own reason. */
export function unreachable(host: string, error: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof RemoteAgentError) return error;
  if (error instanceof AddressRefusedError) {
    return new RemoteAgentError(
      `The remote agent at ${host} was refused: ${error.message} (a private address is reached only by an operator's definition or a host in A2A_ALLOWED_HOSTS)`,
      { cause: error },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new RemoteAgentError(`The remote agent at ${host} could not be reached: ${reason}`, { cause: error });
}

/**
 * Agent cards, read through the address checks and kept `ttlMs` per card URL and trust
 * (a card read for an operator's definition is not served to one made in the app, whose
 * address checks are stricter). Concurrent reads of one card share one request.
 */
export function createCardCache(options: { allowedHosts: readonly string[]; ttlMs: number; fetchCard: CardFetch; now: () => number }) {
  const entries = new Map<string, { read: Promise<ReadCard>; expires: number }>();

  // Not bound to one caller's signal: concurrent callers share the read, so it ends on
  // its own deadline (headers and body), and each caller stops waiting on its own signal.
  async function read(cardUrl: string, trusted: boolean): Promise<ReadCard> {
    const host = hostOf(cardUrl);
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new Error(`its agent card did not arrive within ${CARD_TIMEOUT_MS / 1000} s`)),
      CARD_TIMEOUT_MS,
    );
    let response: Response;
    let json: unknown;
    try {
      const allowHosts = allowedHostsFor(cardUrl, trusted, options.allowedHosts);
      response = await untilAborted(options.fetchCard(cardUrl, { allowHosts, signal: deadline.signal }), deadline.signal);
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new RemoteAgentError(`The remote agent at ${host} could not be reached: its agent card answered HTTP ${response.status}`);
      }
      json = JSON.parse(await untilAborted(response.text(), deadline.signal));
    } catch (error) {
      if (error instanceof ResponseTooLargeError) {
        throw new RemoteAgentError(`The remote agent at ${host} answered an agent card that is not valid: it is larger than 256 KB`);
      }
      if (error instanceof SyntaxError) {
        throw new RemoteAgentError(`The remote agent at ${host} answered an agent card that is not valid: it is not JSON`);
      }
      throw unreachable(host, error);
    } finally {
      clearTimeout(timer);
    }
    try {
      const card = checkAgentCard(json);
      // A card may name its endpoint relative to where it was finally read.
      return { card, endpoint: cardEndpoint(card, response.url || cardUrl) };
    } catch (error) {
      if (error instanceof AgentCardError) {
        throw new RemoteAgentError(`The remote agent at ${host} answered an agent card that is not valid: ${error.message}`);
      }
      throw error;
    }
  }

  return {
    /** The card, from the cache while fresh; throws RemoteAgentError (or the signal's reason). */
    get(cardUrl: string, trusted: boolean, signal: AbortSignal): Promise<ReadCard> {
      const key = `${trusted ? "operator" : "app"} ${cardUrl}`;
      const now = options.now();
      const cached = entries.get(key);
      if (cached && cached.expires > now) return untilAborted(cached.read, signal);
      const pending = read(cardUrl, trusted);
      entries.set(key, { read: pending, expires: now + options.ttlMs });
      // A failed read is not kept: the next call tries again.
      pending.catch(() => {
        if (entries.get(key)?.read === pending) entries.delete(key);
      });
      return untilAborted(pending, signal);
    },
  };
}

export type CardCache = ReturnType<typeof createCardCache>;

/** The promise's outcome, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
