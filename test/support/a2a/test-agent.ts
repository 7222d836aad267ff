import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  A2A_PROTOCOL_VERSION,
  AGENT_CARD_PATH,
  Role,
  TaskState,
  type AgentCard,
  type Artifact,
  type Message,
  type Task,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { createRemoteJWKSet, jwtVerify } from "jose";

/**
 * A real A2A agent for the tests, built with the SDK's server classes on express and
 * listening on 127.0.0.1. Its card is at `/.well-known/agent-card.json`, its JSON-RPC
 * endpoint at `/a2a/jsonrpc`. What it does is chosen by the first word of the text it is
 * sent, so a scripted master model picks a behaviour by the task it writes:
 *
 * - `stream` (and anything else): working "Reading the data", working "Summarising", the
 *   artifact "report" in two chunks, completed.
 * - `ask`: working, then input-required "Which region?"; the next message in the same task
 *   completes it with the artifact "answer": "Sales in <answer>: 42".
 * - `slow`: a working status every 50 ms until cancelled (then canceled), at most 2 minutes.
 * - `hang`: accepts the task and says nothing more; the stream ends after 2 minutes or on close().
 * - `garbage`: answered by hand, not by the SDK: an event stream A2A does not allow
 *   (`garbage json`: events that are not JSON at all).
 * - `fail`: failed, "The warehouse is offline".
 * - `huge`: an artifact of 300 000 characters in 100 chunks, then completed.
 * - `endless`: working statuses as fast as it can until cancelled (at most 2 minutes).
 * - `shout`: a working status of 50 000 characters, then a short artifact and completed.
 */
export interface TestA2AAgentOptions {
  /** The card's `capabilities.streaming`; without it the agent answers only `SendMessage`. */
  streaming?: boolean;
  /** Required as `Authorization: Bearer <token>` on every JSON-RPC request (401 otherwise). */
  token?: string;
  /** Served as the agent card instead of the real one (a forged or hostile card). */
  cardOverride?: unknown;
  /** Speaks only A2A 0.3 (the SDK's compatibility layer): its card offers a 0.3 interface alone. */
  legacy?: boolean;
  /**
   * Each person signs in: every JSON-RPC request needs a JWT access token the issuer signed
   * for this agent's endpoint (audience), unexpired. `card` is how the card says where to
   * sign in: an OpenID Connect scheme, an OAuth 2 scheme with the issuer's metadata URL, or
   * none (the endpoint answers 401 with RFC 9728 protected resource metadata instead).
   */
  oauth?: { issuer: string; card: "openIdConnect" | "oauth2" | "none"; scopes?: string[] };
}

export interface TestA2AAgent {
  cardUrl: string;
  /** The JSON-RPC endpoint. */
  url: string;
  /** The ids of the tasks a client asked to cancel. */
  cancels: string[];
  /** The text of every message the agent received, in order. */
  messages: string[];
  /** With `oauth`: the subject of each accepted token, and why each refused one was refused, in order. */
  subjects: string[];
  refusals: string[];
  close(): Promise<void>;
}

/** Bound of `slow` and `hang`, so a test that forgets them does not leave them running. */
const LONGEST_MS = 2 * 60_000;
const SLOW_TICK_MS = 50;
/** `huge`: an artifact of 300 000 characters in 100 chunks, past what a run keeps of artifacts. */
const HUGE_CHUNKS = 100;
const HUGE_CHUNK_CHARS = 3_000;
/** `shout`: one status message far longer than a step shows. */
const SHOUT_CHARS = 50_000;
const JSONRPC_PATH = "/a2a/jsonrpc";

export async function startTestA2AAgent(options: TestA2AAgentOptions = {}): Promise<TestA2AAgent> {
  const cancels: string[] = [];
  const messages: string[] = [];
  const closing = new AbortController();
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const card = agentCard(origin, options.streaming ?? true, options.legacy ? "0.3" : A2A_PROTOCOL_VERSION);
  const subjects: string[] = [];
  const refusals: string[] = [];
  if (options.oauth) card.securitySchemes = securitySchemesFor(options.oauth);
  const legacyCompat = { enabled: options.legacy ?? false };
  const executor = new ScriptedExecutor(messages, cancels, closing.signal);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);

  if (options.cardOverride !== undefined) {
    app.get(`/${AGENT_CARD_PATH}`, (_req, res) => void res.json(options.cardOverride));
  } else {
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  }
  app.use(JSONRPC_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (options.token && req.header("authorization") !== `Bearer ${options.token}`) {
      res.status(401).set("www-authenticate", "Bearer").json({ error: "a bearer token is required" });
      return;
    }
    next();
  });
  if (options.oauth) {
    const { issuer } = options.oauth;
    const audience = `${origin}${JSONRPC_PATH}`;
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource${JSONRPC_PATH}`;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
    app.get(`/.well-known/oauth-protected-resource${JSONRPC_PATH}`, (_req, res) => {
      // A card that says where to sign in is the only place that says it, so a sign-in that works used the card.
      const servers = options.oauth?.card === "none" ? { authorization_servers: [issuer] } : {};
      res.json({ resource: audience, ...servers, scopes_supported: options.oauth?.scopes ?? [] });
    });
    app.use(JSONRPC_PATH, (req: Request, res: Response, next: NextFunction) => {
      const refuse = (why: string) => {
        refusals.push(why);
        res.status(401).set("www-authenticate", `Bearer resource_metadata="${metadataUrl}"`).json({ error: "invalid_token" });
      };
      const bearer = /^Bearer (.+)$/.exec(req.header("authorization") ?? "")?.[1];
      if (!bearer) return refuse("no token");
      jwtVerify(bearer, jwks, { issuer, audience }).then(
        ({ payload }) => {
          subjects.push(String(payload.sub));
          next();
        },
        (error: unknown) => refuse(error instanceof Error ? error.message : String(error)),
      );
    });
  }
  app.post(JSONRPC_PATH, express.json(), answerGarbage(messages));
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));

  return {
    cardUrl: `${origin}/${AGENT_CARD_PATH}`,
    url: `${origin}${JSONRPC_PATH}`,
    cancels,
    messages,
    subjects,
    refusals,
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The card's word on where to sign in, in A2A 1.0's shapes (TestA2AAgentOptions.oauth). */
function securitySchemesFor(oauth: NonNullable<TestA2AAgentOptions["oauth"]>): AgentCard["securitySchemes"] {
  if (oauth.card === "none") return {};
  if (oauth.card === "openIdConnect") {
    return {
      people: {
        scheme: {
          $case: "openIdConnectSecurityScheme",
          value: { description: "", openIdConnectUrl: `${oauth.issuer}/.well-known/openid-configuration` },
        },
      },
    };
  }
  const scopes = Object.fromEntries((oauth.scopes ?? []).map((scope) => [scope, `the ${scope} scope`]));
  return {
    people: {
      scheme: {
        $case: "oauth2SecurityScheme",
        value: {
          description: "",
          oauth2MetadataUrl: `${oauth.issuer}/.well-known/oauth-authorization-server`,
          flows: {
            flow: {
              $case: "authorizationCode",
              value: {
                authorizationUrl: `${oauth.issuer}/auth`,
                tokenUrl: `${oauth.issuer}/token`,
                refreshUrl: "",
                scopes,
                pkceRequired: true,
              },
            },
          },
        },
      },
    },
  };
}

function agentCard(origin: string, streaming: boolean, protocolVersion: string): AgentCard {
  return {
    name: "Test warehouse agent",
    description: "Answers questions about the warehouse's sales data.",
    supportedInterfaces: [{ url: `${origin}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "sales",
        name: "Sales report",
        description: "Sums the sales of a region",
        tags: ["sales"],
        examples: ["stream the quarterly report"],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The `garbage` behaviour: a stream the SDK's handler would never write. */
function answerGarbage(messages: string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as { id?: unknown; params?: { message?: { parts?: Array<{ text?: unknown }> } } } | undefined;
    const text = body?.params?.message?.parts?.[0]?.text;
    if (typeof text !== "string" || !text.startsWith("garbage")) return next();
    messages.push(text);
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (text.startsWith("garbage json")) {
      res.write("data: {this is not json\n\n");
    } else {
      // Well-formed JSON-RPC whose result is no A2A stream response.
      res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: body?.id ?? null, result: { nonsense: [1, 2, 3] } })}\n\n`);
    }
    res.end("data: {\n\n");
  };
}

function textOf(message: Message): string {
  return message.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

class ScriptedExecutor implements AgentExecutor {
  private readonly cancelled = new Set<string>();

  constructor(
    private readonly messages: string[],
    private readonly cancels: string[],
    private readonly closing: AbortSignal,
  ) {}

  cancelTask = async (taskId: string): Promise<void> => {
    this.cancels.push(taskId);
    this.cancelled.add(taskId);
  };

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const text = textOf(context.userMessage);
    this.messages.push(text);
    const say = new Publisher(context, bus);
    say.task(context.task);

    if (context.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      say.status(TaskState.TASK_STATE_WORKING);
      say.artifact({ id: "answer", name: "answer", text: `Sales in ${text.trim()}: 42` });
      return say.status(TaskState.TASK_STATE_COMPLETED);
    }
    switch (text.trim().split(/\s+/)[0]?.toLowerCase()) {
      case "ask":
        say.status(TaskState.TASK_STATE_WORKING);
        return say.status(TaskState.TASK_STATE_INPUT_REQUIRED, "Which region?");
      case "slow":
        return this.slow(context.taskId, say);
      case "hang":
        return waitFor(LONGEST_MS, this.closing);
      case "fail":
        return say.status(TaskState.TASK_STATE_FAILED, "The warehouse is offline");
      case "huge":
        for (let i = 0; i < HUGE_CHUNKS; i++) {
          say.artifact({ id: "dump", name: "dump", text: "x".repeat(HUGE_CHUNK_CHARS), append: i > 0, lastChunk: i === HUGE_CHUNKS - 1 });
        }
        return say.status(TaskState.TASK_STATE_COMPLETED);
      case "endless":
        return this.endless(context.taskId, say);
      case "shout":
        say.status(TaskState.TASK_STATE_WORKING, "A".repeat(SHOUT_CHARS));
        say.artifact({ id: "answer", name: "answer", text: "Quiet now." });
        return say.status(TaskState.TASK_STATE_COMPLETED);
      default:
        say.status(TaskState.TASK_STATE_WORKING, "Reading the data");
        say.status(TaskState.TASK_STATE_WORKING, "Summarising");
        say.artifact({ id: "report", name: "report", text: "Sales rose 4 %", lastChunk: false });
        say.artifact({ id: "report", name: "report", text: " in the third quarter.", append: true });
        return say.status(TaskState.TASK_STATE_COMPLETED);
    }
  };

  /** Status updates as fast as it can until cancelled (at most LONGEST_MS): it never ends by itself first. */
  private async endless(taskId: string, say: Publisher): Promise<void> {
    const until = Date.now() + LONGEST_MS;
    try {
      for (let i = 0; !this.cancelled.has(taskId); i++) {
        if (Date.now() > until || this.closing.aborted) return say.status(TaskState.TASK_STATE_FAILED, "The endless task ran out of time");
        say.status(TaskState.TASK_STATE_WORKING, `Update ${i}`);
        if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      }
      say.status(TaskState.TASK_STATE_CANCELED, "Stopped on request");
    } finally {
      this.cancelled.delete(taskId);
    }
  }

  private async slow(taskId: string, say: Publisher): Promise<void> {
    const until = Date.now() + LONGEST_MS;
    try {
      while (!this.cancelled.has(taskId)) {
        if (Date.now() > until || this.closing.aborted) return say.status(TaskState.TASK_STATE_FAILED, "The slow task ran out of time");
        say.status(TaskState.TASK_STATE_WORKING, "Still counting");
        await waitFor(SLOW_TICK_MS, this.closing);
      }
      say.status(TaskState.TASK_STATE_CANCELED, "Stopped on request");
    } finally {
      this.cancelled.delete(taskId);
    }
  }
}

/** Resolves after `ms`, or at once when the agent closes. */
function waitFor(ms: number, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      closing.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    closing.addEventListener("abort", done, { once: true });
  });
}

/** The events of one request, in the SDK's shapes. */
class Publisher {
  constructor(
    private readonly context: RequestContext,
    private readonly bus: ExecutionEventBus,
  ) {}

  /** Every answer starts with the task (the SDK refuses a stream that does not). */
  task(existing: Task | undefined): void {
    this.bus.publish(
      AgentEvent.task(
        existing ?? {
          id: this.context.taskId,
          contextId: this.context.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [this.context.userMessage],
          metadata: undefined,
        },
      ),
    );
  }

  status(state: TaskState, text?: string): void {
    const { taskId, contextId } = this.context;
    const message: Message | undefined = text
      ? {
          messageId: randomUUID(),
          contextId,
          taskId,
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }
      : undefined;
    this.bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }),
    );
  }

  artifact(chunk: { id: string; name: string; text: string; append?: boolean; lastChunk?: boolean }): void {
    const artifact: Artifact = {
      artifactId: chunk.id,
      name: chunk.name,
      description: "",
      parts: [{ content: { $case: "text", value: chunk.text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined,
      extensions: [],
    };
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.context.taskId,
        contextId: this.context.contextId,
        artifact,
        append: chunk.append ?? false,
        lastChunk: chunk.lastChunk ?? true,
        metadata: undefined,
      }),
    );
  }
}
