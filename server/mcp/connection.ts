import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpServerInfo } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { adaptMcpTools, type RawMcpCallResult, type RawMcpTool } from "@/lib/mcp/adapt";
import type { McpServerConfig } from "@/lib/mcp/config";
import { ToolError, type Tool, type ToolContext } from "@/lib/tools/types";
import { boundedFetch, CallScope, megabytes, ReplyTooLargeError } from "./bounded-fetch";

/**
 * One MCP server: connects through the official SDK client (a spawned stdio process or
 * Streamable HTTP), lists its tools, lists them again when the server says they changed,
 * and reconnects with exponential backoff when the connection fails or the process dies.
 * A call never hangs a turn: it is bounded by the server's timeout and the caller's abort
 * signal, and every failure is a ToolError that names the server. Over HTTP a message is
 * bounded in size as over stdio, and a call given up closes its request (bounded-fetch.ts).
 *
 * A server may ask the person a question while a call runs (elicitation, form mode): the
 * question goes to the call's `askInput` (docs/input-requests.md). The client cannot tell
 * from a request which call made it (the SDK does not hand a client the related request),
 * so a question is put to the one call in flight on this connection; with none or several
 * in flight it is declined. The call's timeout does not run while the person answers.
 */

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 30_000 };
const STDERR_TAIL_CHARS = 1_000;
/**
 * The handshake and tool listing get at least this long, whatever a server's call timeout:
 * starting a process (npx, a cold module cache, a busy machine) can take seconds that a
 * tight per-call timeout should not be spent on.
 */
const MIN_CONNECT_TIMEOUT_MS = 30_000;
/** The SDK's own timeout, never reached: a call's timeout is kept here, so it can stop while a person answers. */
const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;
/** A server may page its tool list; more than this many tools from one server is refused. */
const MAX_TOOLS_PER_SERVER = 1_000;

// The SDK's own schemas reject a whole list for one bad tool; these keep the list and let adapt.ts judge each tool.
const toolListSchema = z.looseObject({ tools: z.array(z.looseObject({})).default([]), nextCursor: z.string().optional() });
const callResultSchema = z.looseObject({
  content: z.unknown().optional(),
  structuredContent: z.unknown().optional(),
  isError: z.unknown().optional(),
});

export interface ConnectionOptions {
  backoff?: Backoff;
  log?: Pick<Logger, "warn" | "info">;
  /** Status or tool list changed. */
  onChange?: () => void;
  /**
   * A person's OAuth sign-in (server/mcp/oauth/): the SDK sends its token, refreshes it
   * when the server refuses it, and fetches through `fetch` (which guards the addresses
   * the server's metadata names). When no token will do, the connection stops with
   * `needs_sign_in` instead of retrying.
   */
  auth?: { provider: OAuthClientProvider; fetch: typeof fetch; needsSignIn: () => boolean };
}

export class McpConnection {
  status: McpServerInfo["status"] = "connecting";
  error: string | undefined;
  tools: Tool[] = [];
  /** Consecutive failed connects or crashes: sets the next backoff. */
  private failures = 0;
  /** Bumped on every new connection attempt, so events from an old client are ignored. */
  private generation = 0;
  private client: Client | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private stderrTail = "";
  private lastWarnings = "";
  private readonly backoff: Backoff;
  /** The calls in flight, each with how it asks its person (absent: it cannot). */
  private readonly inFlight = new Set<InFlightCall>();

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions = {},
  ) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    if (!config.enabled) this.status = "disabled";
  }

  private get connectTimeoutMs(): number {
    return Math.max(this.config.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
  }

  get name(): string {
    return this.config.name;
  }

  start(): void {
    if (this.config.enabled) void this.connect();
  }

  info(): McpServerInfo {
    return {
      name: this.name,
      status: this.status,
      ...(this.error ? { error: this.error } : {}),
      tools: this.tools.map((t) => ({ name: t.spec.name, description: t.spec.description.slice(0, 300) })),
    };
  }

  /** Resolves once the current connection attempt has succeeded or failed. */
  async settled(): Promise<void> {
    while (!this.closed && this.status === "connecting") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.stableTimer);
    this.generation++;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  async call(
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    ask?: ToolContext["askInput"],
  ): Promise<RawMcpCallResult> {
    const client = this.client;
    const generation = this.generation;
    const label = `"${this.name}"`;
    if (!client || this.status !== "connected") {
      throw new ToolError(
        `MCP server ${label} is not available (${this.status}${this.error ? `: ${this.error}` : ""}); "${toolName}" was not run.`,
      );
    }
    const scope = new CallScope();
    const timeout = new CallTimeout(this.config.timeoutMs);
    const flight: InFlightCall = { ask, timeout };
    this.inFlight.add(flight);
    try {
      return await scope.run(() =>
        Promise.race([
          client.request({ method: "tools/call", params: { name: toolName, arguments: args } }, callResultSchema, {
            signal: AbortSignal.any([signal, scope.signal, timeout.signal]),
            timeout: NO_SDK_TIMEOUT_MS,
          }),
          scope.failed,
        ]),
      );
    } catch (error) {
      // Whatever ended the call, its HTTP request stops being read and its connection closes.
      scope.abort();
      if (scope.failure instanceof ReplyTooLargeError) {
        throw new ToolError(
          `MCP server ${label} sent a reply larger than ${megabytes(scope.failure.maxBytes)} to "${toolName}"; it was cut off there and not used.`,
        );
      }
      if (signal.aborted) throw new ToolError(`The call to "${toolName}" on MCP server ${label} was stopped before it finished.`);
      if (timeout.fired || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
        throw new ToolError(`MCP server ${label} did not answer the call to "${toolName}" within ${seconds(this.config.timeoutMs)}.`);
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw new ToolError(
          `MCP server ${label} closed the connection during the call to "${toolName}" (it stopped or crashed); it is being restarted.`,
        );
      }
      // Over HTTP nothing closes when the server goes away; a failed request (not an MCP error answer) says so.
      if (!(error instanceof McpError) && this.config.transport === "http") this.lost(generation, message(error));
      throw new ToolError(`MCP server ${label} failed the call to "${toolName}": ${message(error)}`);
    } finally {
      this.inFlight.delete(flight);
      timeout.clear();
    }
  }

  /**
   * A server's question (elicitation/create, form mode): put to the person through the one
   * call in flight, answered as the MCP result. A form Delegate cannot show is refused
   * with the reason, which the server reads as the request's error.
   */
  private async elicit(params: { message: string; requestedSchema?: unknown }, signal: AbortSignal): Promise<ElicitResult> {
    const [flight, ...others] = this.inFlight;
    if (!flight?.ask || others.length > 0) return { action: "decline" };
    flight.timeout.hold();
    try {
      const answer = await flight.ask(params.message, params.requestedSchema, { signal });
      return answer.action === "accept" ? { action: "accept", content: answer.content } : { action: answer.action };
    } catch (error) {
      if (error instanceof ToolError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    } finally {
      flight.timeout.resume();
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const generation = ++this.generation;
    // A retry keeps reading "failed" (or "restarting") until it succeeds: a server that keeps
    // failing should not flicker back to "connecting…" for the moment each attempt takes.
    if (this.failures === 0) this.setStatus("connecting");
    const client = new Client({ name: "delegate", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      const { params } = request;
      // Only form mode is declared, and the SDK refuses the other before it gets here.
      if (params.mode === "url") return { action: "decline" };
      return this.elicit(params, extra.signal);
    });
    client.onclose = () => this.lost(generation, "the connection closed");
    // Transport errors (a bad line from the server, a failed send) surface through the calls they break.
    client.onerror = () => undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.listTools(generation, client).catch((error: unknown) => {
        this.options.log?.warn(`MCP server "${this.name}": refreshing its tool list failed`, { error: message(error) });
      });
    });
    // Held from the start, so a close or a failure during the handshake ends the process too.
    this.client = client;
    try {
      await client.connect(this.transport(), { timeout: this.connectTimeoutMs });
      if (generation !== this.generation) {
        await client.close().catch(() => undefined);
        return;
      }
      await this.listTools(generation, client);
      if (generation !== this.generation) return;
      this.error = undefined;
      this.setStatus("connected");
      // Up long enough: the next crash starts the backoff from the beginning again.
      this.stableTimer = setTimeout(() => (this.failures = 0), this.backoff.maxMs);
      this.stableTimer.unref();
    } catch (error) {
      if (error instanceof UnauthorizedError || this.options.auth?.needsSignIn()) this.signInNeeded(generation);
      else this.lost(generation, message(error));
    }
  }

  /** No token this person holds is accepted any more: nothing to retry until they sign in again. */
  private signInNeeded(generation: number): void {
    if (generation !== this.generation || this.closed) return;
    this.generation++;
    clearTimeout(this.stableTimer);
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
    this.tools = [];
    this.error = "sign in to use this server";
    this.setStatus("needs_sign_in");
  }

  /** The connection failed or dropped: close what is left and try again after the backoff. */
  private lost(generation: number, reason: string): void {
    if (generation !== this.generation || this.closed) return;
    // The SDK gave up on this person's token (refresh refused): retrying cannot help.
    if (this.options.auth?.needsSignIn()) {
      this.signInNeeded(generation);
      return;
    }
    this.generation++;
    clearTimeout(this.stableTimer);
    const wasConnected = this.status === "connected";
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
    const stderr = this.stderrTail.trim();
    this.error = `${wasConnected ? "the server stopped: " : ""}${reason}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ""}`;
    this.stderrTail = "";
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.failures);
    this.failures++;
    this.options.log?.warn(`MCP server "${this.name}" ${wasConnected ? "stopped" : "failed to connect"}; retrying in ${seconds(delay)}`, {
      error: this.error,
    });
    this.setStatus(wasConnected ? "restarting" : "failed");
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private async listTools(generation: number, client: Client): Promise<void> {
    const listed: RawMcpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, toolListSchema, {
        timeout: this.connectTimeoutMs,
      });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && listed.length < MAX_TOOLS_PER_SERVER);
    if (generation !== this.generation) return;
    const adapted = adaptMcpTools(this.config, listed.slice(0, MAX_TOOLS_PER_SERVER), (name, args, signal, ask) =>
      this.call(name, args, signal, ask),
    );
    const warnings = adapted.warnings.join("\n");
    if (warnings && warnings !== this.lastWarnings) for (const w of adapted.warnings) this.options.log?.warn(w);
    this.lastWarnings = warnings;
    this.tools = adapted.tools;
    this.options.onChange?.();
  }

  private transport(): Transport {
    const config = this.config;
    if (config.transport === "http") {
      const auth = this.options.auth;
      return new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers },
        fetch: boundedFetch(undefined, auth?.fetch),
        ...(auth ? { authProvider: auth.provider } : {}),
      });
    }
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      stderr: "pipe",
    });
    // Read stderr always (a full pipe would block the server) and keep its tail for the error message.
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private setStatus(status: McpServerInfo["status"]): void {
    this.status = status;
    this.options.onChange?.();
  }
}

interface InFlightCall {
  ask: ToolContext["askInput"];
  timeout: CallTimeout;
}

/**
 * A call's timeout that stops while a person answers the server's question and starts
 * again, whole, once they have: the server is given its full time to finish the work.
 */
class CallTimeout {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private holds = 0;
  fired = false;

  constructor(private readonly ms: number) {
    this.start();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  hold(): void {
    this.holds++;
    clearTimeout(this.timer);
  }

  resume(): void {
    if (--this.holds === 0 && !this.fired) this.start();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private start(): void {
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new McpError(ErrorCode.RequestTimeout, "Request timed out"));
    }, this.ms);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
