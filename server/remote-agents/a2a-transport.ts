import { randomUUID } from "node:crypto";
import { Role, type AgentCard as SdkAgentCard, type SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { A2AError } from "@a2a-js/sdk/errors";
import { variable } from "@/lib/env";
import { describeRemoteAgent } from "@/lib/remote-agents/card";
import type { RemoteAgentRef } from "@/lib/remote-agents/remote-ref";
import {
  RemoteAgentError,
  type RemoteAgentTransport,
  type RemoteCallOptions,
  type RemoteTask,
  type RemoteUpdate,
} from "@/lib/remote-agents/transport";
import { guardedFetch, ResponseTooLargeError } from "@/server/net/guarded-fetch";
import { answerUpdate, toRemoteUpdate } from "./a2a-updates";
import type { RemoteSignIns } from "./remote-sign-in";
import {
  allowedHostsFor,
  createCardCache,
  DEFAULT_CARD_TTL_MS,
  fetchCardGuarded,
  hostOf,
  unreachable,
  type CardCache,
  type CardFetch,
  type ReadCard,
} from "./card-cache";

export interface A2ATransportOptions {
  /** Hosts any definition may reach at a private address (A2A_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** How long a card is kept; 5 minutes unless set. */
  cardTtlMs?: number;
  /** Reads a card URL (tests count reads); guardedFetch with the card's bounds unless set. */
  fetchCard?: CardFetch;
  now?: () => number;
  /** The cards, shared with the sign-ins (which read where to sign in from them); its own cache unless set. */
  cards?: CardCache;
  /** People's sign-ins to the remote agents that want one (`a2a.oauth`); absent, such an agent is refused. */
  signIns?: Pick<RemoteSignIns, "token" | "refresh">;
}

/** Until a stream's headers arrive; then the stream runs as long as the caller's signal lets it. */
const STREAM_HEADERS_TIMEOUT_MS = 30_000;
/** A non-streaming answer comes when the task ends, so its headers may take as long. */
const ANSWER_TIMEOUT_MS = 10 * 60_000;
/** All the bytes of one response or stream; each update is bounded on its own too. */
const RESPONSE_MAX_BYTES = 64 * 2 ** 20;
const CANCEL_TIMEOUT_MS = 10_000;

/**
 * The A2A client behind remote subagents (the port is lib/remote-agents/transport.ts).
 * Cards and every JSON-RPC request go through guardedFetch, so a remote's address (and
 * every redirect) is checked; the bearer token goes only to the card's own origin.
 */
export function createA2ATransport(options: A2ATransportOptions): RemoteAgentTransport {
  const cards =
    options.cards ??
    createCardCache({
      allowedHosts: options.allowedHosts,
      ttlMs: options.cardTtlMs ?? DEFAULT_CARD_TTL_MS,
      fetchCard: options.fetchCard ?? fetchCardGuarded,
      now: options.now ?? Date.now,
    });

  return {
    async describe(ref, call) {
      const { card } = await cards.get(ref.cardUrl, call.trusted, call.signal);
      return { name: card.name, description: describeRemoteAgent(card), streaming: card.capabilities?.streaming ?? false };
    },

    async start(ref, text, call) {
      const read = await cards.get(ref.cardUrl, call.trusted, call.signal);
      const client = await clientFor(ref, read, call, options);
      const streaming = read.card.capabilities?.streaming ?? false;
      const host = hostOf(ref.cardUrl);
      const seen: { taskId?: string; contextId?: string } = {};

      const exchange = (message: string, signal: AbortSignal) =>
        remember(seen, converse(client, streaming, host, userMessage(message, seen), signal));

      // The first item is awaited here, so an agent that cannot be reached or refuses the
      // token fails `start` itself; the rest streams through `updates`.
      const first = exchange(text, call.signal);
      const head = await first.next();
      async function* updates(): AsyncGenerator<RemoteUpdate> {
        if (head.done) return;
        yield head.value;
        yield* first;
      }

      const task: RemoteTask = {
        updates: updates(),
        async cancel() {
          if (!seen.taskId) return;
          const deadline = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
          // Best effort: the run is ending whatever the remote answers.
          await client.cancelTask({ tenant: "", id: seen.taskId, metadata: undefined }, { signal: deadline }).catch(() => undefined);
        },
        send(message, signal) {
          return exchange(message, signal);
        },
      };
      return task;
    },
  };
}

/** The token a definition names, from the environment; undefined when it names none. */
function bearerToken(ref: RemoteAgentRef, host: string): string | undefined {
  if (!ref.bearerTokenEnv) return undefined;
  const token = variable(ref.bearerTokenEnv);
  if (!token) {
    throw new RemoteAgentError(
      `The remote agent at ${host} needs the token in the environment variable ${ref.bearerTokenEnv}, which is not set`,
    );
  }
  return token;
}

async function clientFor(ref: RemoteAgentRef, read: ReadCard, call: RemoteCallOptions, options: A2ATransportOptions): Promise<Client> {
  const host = hostOf(ref.cardUrl);
  const allowHosts = allowedHostsFor(ref.cardUrl, call.trusted, options.allowedHosts);
  const fetchImpl = a2aFetch({ allowHosts, host, auth: ref.oauth ? await personalAuth(ref, read, call, options) : sharedAuth(ref, read) });
  const card: SdkAgentCard = {
    name: read.card.name,
    description: read.card.description,
    // Only the endpoint chosen and checked by cardEndpoint, whatever else the card offers.
    supportedInterfaces: [
      {
        url: read.endpoint.url,
        protocolBinding: "JSONRPC",
        tenant: read.endpoint.tenant ?? "",
        protocolVersion: read.endpoint.protocolVersion,
      },
    ],
    provider: undefined,
    version: read.card.version ?? "",
    capabilities: {
      streaming: read.card.capabilities?.streaming ?? false,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
    signatures: [],
  };
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })] });
  return factory.createFromAgentCard(card);
}

/** How a request proves who sends it: a bearer token for one origin, and what to do when it is refused. */
interface RequestAuth {
  origin: string;
  token: string;
  /** What the person should do once the remote refused the token. */
  advice: string;
  /** A fresh token after a refusal (a person's sign-in is refreshed); undefined: none to be had. */
  refresh?: () => Promise<string | undefined>;
}

/** The operator's token for everyone (`bearerTokenEnv`), for the card's own origin; undefined without one. */
function sharedAuth(ref: RemoteAgentRef, read: ReadCard): RequestAuth | undefined {
  const host = hostOf(ref.cardUrl);
  const cardOrigin = new URL(ref.cardUrl).origin;
  const token = bearerToken(ref, host);
  if (!token) return undefined;
  // Refused rather than sent without the token: without it the call would only fail later,
  // as unauthorised, and the person would not learn that the card points elsewhere.
  if (new URL(read.endpoint.url).origin !== cardOrigin) {
    throw new RemoteAgentError(
      `The remote agent at ${host} names its endpoint on another origin (${new URL(read.endpoint.url).origin}); its token (${ref.bearerTokenEnv}) is sent only to ${cardOrigin}`,
    );
  }
  return { origin: cardOrigin, token, advice: `check the token in ${ref.bearerTokenEnv}` };
}

/**
 * The token of the person the run is for (`oauth`), for the agent's endpoint: the
 * authorization server issued it for that address alone, so it goes nowhere else.
 */
async function personalAuth(
  ref: RemoteAgentRef,
  read: ReadCard,
  call: RemoteCallOptions,
  options: A2ATransportOptions,
): Promise<RequestAuth> {
  const host = hostOf(ref.cardUrl);
  const { agent, ownerId } = call;
  const signIns = options.signIns;
  if (!signIns || !agent || !ownerId) {
    throw new RemoteAgentError(`The remote agent at ${host} needs each person to sign in, and this run is not one person's`);
  }
  const advice = signInAdvice(agent);
  const token = await signIns.token(ownerId, agent);
  if (!token) throw new RemoteAgentError(`The remote agent "${agent}" at ${host} needs you to sign in: ${advice}`);
  return { origin: new URL(read.endpoint.url).origin, token, advice, refresh: () => signIns.refresh(ownerId, agent) };
}

/** Where a person signs in to a remote agent, and what then. */
export function signInAdvice(agent: string): string {
  return `sign in to "${agent}" from the wrench menu in the chat's header, then retry the run`;
}

/**
 * The SDK's fetch: guardedFetch with the call's allow-list, the bearer token added for its
 * origin only (refreshed once when refused, where it can be), and the failures a person
 * should understand turned into RemoteAgentError before the SDK words them.
 */
function a2aFetch(options: { allowHosts: readonly string[]; host: string; auth?: RequestAuth }): typeof fetch {
  const bounds = { allowHosts: options.allowHosts, maxBytes: RESPONSE_MAX_BYTES };
  const streamFetch = guardedFetch({ ...bounds, timeoutMs: STREAM_HEADERS_TIMEOUT_MS });
  const answerFetch = guardedFetch({ ...bounds, timeoutMs: ANSWER_TIMEOUT_MS });
  const auth = options.auth;
  return async (input, init) => {
    const request = new Request(input, init);
    const ours = auth !== undefined && new URL(request.url).origin === auth.origin;
    const streaming = request.headers.get("accept")?.includes("text/event-stream") ?? false;
    // Kept for a second try with a refreshed token: a sent body cannot be read again.
    const again = ours && auth.refresh ? request.clone() : undefined;
    const send = async (attempt: Request, token: string | undefined) => {
      const headers = new Headers(attempt.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      try {
        return await (streaming ? streamFetch : answerFetch)(new Request(attempt, { headers }));
      } catch (error) {
        throw unreachable(options.host, error, request.signal);
      }
    };
    let response = await send(request, ours ? auth.token : undefined);
    if (refused(response) && again && auth?.refresh) {
      await response.body?.cancel().catch(() => undefined);
      const fresh = await auth.refresh();
      if (fresh) {
        auth.token = fresh;
        response = await send(again, fresh);
      }
    }
    if (refused(response)) {
      await response.body?.cancel().catch(() => undefined);
      throw new RemoteAgentError(
        `The remote agent at ${options.host} refused the authorization (HTTP ${response.status}): ${
          auth ? auth.advice : "it needs a token (bearerTokenEnv)"
        }`,
      );
    }
    return response;
  };
}

const refused = (response: Response) => response.status === 401 || response.status === 403;

function userMessage(text: string, seen: { taskId?: string; contextId?: string }): SendMessageRequest {
  return {
    tenant: "",
    message: {
      messageId: randomUUID(),
      contextId: seen.contextId ?? "",
      taskId: seen.taskId ?? "",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

/** One message and what the remote answers to it, as updates; every failure a RemoteAgentError. */
async function* converse(
  client: Client,
  streaming: boolean,
  host: string,
  request: SendMessageRequest,
  signal: AbortSignal,
): AsyncGenerator<RemoteUpdate> {
  try {
    if (!streaming) {
      yield answerUpdate(await client.sendMessage(request, { signal }), host);
      return;
    }
    for await (const item of client.sendMessageStream(request, { signal })) {
      yield toRemoteUpdate(item, host);
    }
  } catch (error) {
    throw answered(host, error, signal);
  }
}

function answered(host: string, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof RemoteAgentError) return error;
  if (error instanceof ResponseTooLargeError) {
    return new RemoteAgentError(`The remote agent at ${host} sent more than ${RESPONSE_MAX_BYTES / 2 ** 20} MB in one answer`, {
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof A2AError)
    return new RemoteAgentError(`The remote agent at ${host} answered with an error: ${reason}`, { cause: error });
  return new RemoteAgentError(`The remote agent at ${host} answered something A2A does not allow: ${reason}`, { cause: error });
}

/** Keeps the task's ids as they appear, for a follow-up message and for cancel. */
async function* remember(
  seen: { taskId?: string; contextId?: string },
  updates: AsyncGenerator<RemoteUpdate>,
): AsyncGenerator<RemoteUpdate> {
  for await (const update of updates) {
    if (update.taskId) seen.taskId ??= update.taskId;
    if ("contextId" in update && update.contextId) seen.contextId ??= update.contextId;
    yield update;
  }
}
