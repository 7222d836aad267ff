import type { IncomingMessage, ServerResponse } from "node:http";
import { DefaultRequestHandler, type User } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { A2A_SERVER_PATHS, delegateAgentCard, type CardSkill } from "@/lib/a2a-server/agent-card";
import type { Logger } from "@/lib/log";
import type { Models } from "@/models";
import type { ApiTokenService, TokenHolder } from "@/server/api-tokens/api-token-service";
import type { SessionService } from "@/server/sessions/session-service";
import { DelegateExecutor } from "./delegate-executor";
import { MongoTaskStore } from "./task-store";
import type { TurnTaps } from "./turn-taps";

export interface A2AServerDeps {
  tokens: ApiTokenService;
  sessions: Pick<SessionService, "create" | "send" | "command" | "settings">;
  taps: TurnTaps;
  tasks: Models["A2ATask"];
  /** The card's skills besides the master (A2A_SERVER_SKILLS). */
  skills: readonly CardSkill[];
  /** PUBLIC_URL: the origin the card names; absent: the request's own. */
  publicUrl?: string;
  version: string;
  log?: Pick<Logger, "warn" | "error">;
  /** See DelegateExecutorDeps.heartbeatMs. */
  heartbeatMs?: number;
}

/** A JSON-RPC request's body, at most: a task is text, not a file upload. */
const MAX_BODY = "256kb";
/** JSON-RPC's code for a request the server refuses to serve (the spec leaves -32000…-32099 to servers). */
const UNAUTHORIZED_CODE = -32001;

/** The token's owner, as the SDK's user: every task and look-up is scoped to them (task-store.ts). */
class TokenOwner implements User {
  constructor(readonly holder: TokenHolder) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.holder.ownerId;
  }
}

/**
 * Delegate as an A2A server (A2A_SERVER_ENABLED): the agent card at
 * `/.well-known/agent-card.json` and JSON-RPC at `/a2a/jsonrpc`, served by the SDK's
 * express handlers inside the app's own request handler (after its Host check). A
 * JSON-RPC request needs `Authorization: Bearer dlg_…`, a live token of scope `a2a`;
 * without one it is answered 401 with a JSON-RPC error, before its body is read.
 */
export function a2aServer(deps: A2AServerDeps): (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<boolean> {
  const handler = new DefaultRequestHandler(
    delegateAgentCard(deps.publicUrl ?? "http://localhost", deps.version, deps.skills),
    new MongoTaskStore(deps.tasks, (turn) => {
      // Already ended or cancelled (this process's own cancel saves the task canceled too): nothing to stop.
      void deps.sessions.command(turn.ownerId, turn.sessionId, { kind: "cancel", turnId: turn.turnId }).catch(() => undefined);
    }),
    new DelegateExecutor({
      sessions: deps.sessions,
      taps: deps.taps,
      tasks: deps.tasks,
      log: deps.log,
      ...(deps.heartbeatMs ? { heartbeatMs: deps.heartbeatMs } : {}),
    }),
  );
  const holders = new WeakMap<IncomingMessage, TokenHolder>();
  const legacyCompat = { enabled: true };
  const app = express();
  app.disable("x-powered-by");
  // Mounted with `use`: the SDK's handler is a router that answers its mount point.
  app.use(A2A_SERVER_PATHS.card, (req: Request, res: Response, next: NextFunction) => {
    const card = delegateAgentCard(deps.publicUrl ?? originOf(req), deps.version, deps.skills);
    void agentCardHandler({ agentCardProvider: async () => card, legacyCompat })(req, res, next);
  });
  app.use(A2A_SERVER_PATHS.jsonrpc, (req: Request, res: Response, next: NextFunction) => {
    void deps.tokens
      .verify(bearerOf(req.headers.authorization), "a2a")
      .then((holder) => {
        if (!holder) return refuse(req, res);
        holders.set(req, holder);
        // A task's stream may be quiet while a call waits for its owner; the executor's heartbeat keeps it alive,
        // and the idle timeout must not cut it first.
        res.setTimeout(0);
        next();
      })
      .catch(next);
  });
  app.use(A2A_SERVER_PATHS.jsonrpc, express.json({ limit: MAX_BODY }));
  app.use(
    A2A_SERVER_PATHS.jsonrpc,
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: async (req) => new TokenOwner(holders.get(req)!),
      legacyCompat,
    }),
  );
  // What express would answer with its HTML page: a JSON-RPC error instead, without a stack.
  app.use((error: { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    const status = typeof error.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) deps.log?.error("A2A request failed", { error: String(error) });
    if (res.headersSent) return void res.end();
    const message =
      status === 413
        ? "The request is too large."
        : status === 500
          ? "Something went wrong on the server."
          : "The request is not valid JSON.";
    res.status(status).json({ jsonrpc: "2.0", id: null, error: { code: status === 500 ? -32603 : -32700, message } });
  });

  return (req, res, pathname) => {
    if (pathname !== A2A_SERVER_PATHS.card && pathname !== A2A_SERVER_PATHS.jsonrpc) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      res.once("close", () => resolve(true));
      res.once("finish", () => resolve(true));
      app(req as Request, res as Response, () => {
        // Nothing answered (a method the path does not take).
        res.writeHead(405, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Use POST for JSON-RPC, GET for the card." } }));
      });
    });
  };
}

function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

function refuse(req: Request, res: Response): void {
  req.resume();
  res
    .status(401)
    .set("www-authenticate", 'Bearer realm="delegate"')
    .set("connection", "close")
    .json({
      jsonrpc: "2.0",
      id: null,
      error: { code: UNAUTHORIZED_CODE, message: "An API token of scope a2a is required: Authorization: Bearer dlg_…" },
    });
}

/** The origin the request was sent to (its Host passed the app's check). */
function originOf(req: Request): string {
  const proto = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
  return `${proto}://${req.headers.host ?? "localhost"}`;
}
