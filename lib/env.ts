import { z } from "zod";
import { AUTH_MODES } from "@/lib/contracts/account";
import { DEFAULT_ATTACHMENT_MAX_BYTES, DEFAULT_ATTACHMENTS_MAX_CHAT_BYTES } from "@/lib/contracts/attachment";

/**
 * All configuration, parsed once. An empty string counts as unset, so a `.env` line like
 * `OPENAI_API_KEY=` does not switch anything on. Every variable is listed in `.env.example`.
 */
const blankAsUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const opt = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());
// `prefault` parses the fallback like real input, so "false" becomes false.
const withDefault = <T extends z.ZodType>(schema: T, fallback: z.input<T>) =>
  z.preprocess(blankAsUndefined, schema.prefault(fallback as never));
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export const LOG_FORMATS = ["auto", "json", "pretty"] as const;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Whether plain HTTP may reach this issuer: only a provider on this machine (a test or a local one). */
export function isLoopbackIssuer(issuer: string): boolean {
  const url = URL.parse(issuer);
  return url?.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * OpenID Connect needs the issuer and the client id together, and PUBLIC_URL, because the
 * provider only sends people back to a redirect URI registered in advance
 * (`${PUBLIC_URL}/api/auth/oidc/callback`), so the app must know its own address.
 */
function checkOidc(
  value: { OIDC_ISSUER?: string; OIDC_CLIENT_ID?: string; OIDC_CLIENT_SECRET?: string; PUBLIC_URL?: string },
  ctx: z.RefinementCtx,
): void {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId } = value;
  if (!issuer && !clientId && !value.OIDC_CLIENT_SECRET) return;
  if (!issuer)
    ctx.addIssue({ code: "custom", path: ["OIDC_ISSUER"], message: "is required with OIDC_CLIENT_ID (the provider's issuer URL)" });
  if (!clientId)
    ctx.addIssue({
      code: "custom",
      path: ["OIDC_CLIENT_ID"],
      message: "is required with OIDC_ISSUER (the client id the provider gave this app)",
    });
  if (!value.PUBLIC_URL) {
    ctx.addIssue({
      code: "custom",
      path: ["PUBLIC_URL"],
      message: "is required with OIDC_ISSUER: the provider sends people back to ${PUBLIC_URL}/api/auth/oidc/callback",
    });
  }
  // Zod runs this check even when OIDC_ISSUER failed its own (then already reported).
  if (issuer && URL.canParse(issuer) && !issuer.startsWith("https://") && !isLoopbackIssuer(issuer)) {
    ctx.addIssue({
      code: "custom",
      path: ["OIDC_ISSUER"],
      message: "must be an https:// URL (plain http:// only for 127.0.0.1 or localhost)",
    });
  }
}

const nodeEnv = withDefault(z.enum(["development", "production", "test"]), "development");

/** The server log's variables (docs/logs.md), also read on their own by `logEnv`. */
const logVariables = {
  /** The least severe level written: `debug`, `info`, `warn` or `error`. */
  LOG_LEVEL: withDefault(z.enum(LOG_LEVELS), "info"),
  /**
   * `json` (one JSON object a line), `pretty` (coloured lines for a person) or `auto`:
   * pretty when stderr is a terminal and NODE_ENV is not `production`, JSON otherwise.
   */
  LOG_FORMAT: withDefault(z.enum(LOG_FORMATS), "auto"),
};

export const envSchema = z
  .object({
    NODE_ENV: nodeEnv,
    ...logVariables,
    HOST: withDefault(z.string(), "127.0.0.1"),
    PORT: withDefault(int(0, 65535), 3000),
    /** Where the embedded database and the cookie secret live when nothing else is given. */
    DATA_DIR: withDefault(z.string(), ".data"),
    /** Which embedded database runs without MONGODB_URI (see server/db/embedded.ts). */
    EMBEDDED_DB: withDefault(z.enum(["auto", "mongod", "mongo-java-server"]), "auto"),
    MONGODB_URI: opt(z.string().regex(/^mongodb(\+srv)?:\/\//, "must start with mongodb:// or mongodb+srv://")),
    /** Signs identity cookies; generated and kept under DATA_DIR when unset. */
    SESSION_SECRET: opt(z.string().min(32, "must be at least 32 characters")),
    /** Puts a login page in front of everything when set. */
    APP_PASSWORD: opt(z.string().min(1)),
    /**
     * How people get in: `single` (no accounts: a browser is a person, as before), `open`
     * (anyone may sign up), `invite` (sign-up by an admin's invitation link), `sso` (OpenID
     * Connect only). See lib/contracts/account.ts.
     */
    AUTH_MODE: withDefault(z.enum(AUTH_MODES), "single"),
    /** Extra origins allowed to open a socket (reverse proxies), comma-separated. */
    ALLOWED_ORIGINS: withDefault(z.string(), ""),
    /**
     * Host names (optional `:port`) this instance answers to besides the loopback names and
     * HOST, comma-separated; any other Host header is refused (DNS rebinding).
     */
    ALLOWED_HOSTS: withDefault(z.string(), ""),
    /** The address people use, e.g. behind a reverse proxy; its host and origin are allowed. */
    PUBLIC_URL: opt(z.url()),
    /** Largest session file (exported JSON) an import accepts, in MB. */
    IMPORT_MAX_MB: withDefault(int(1, 1_024), 100),
    /** An import's upload must arrive whole within this; a stalled one is cut and nothing it sent is kept. */
    IMPORT_BODY_TIMEOUT_MS: withDefault(int(1_000, 3_600_000), 60_000),
    /** Largest file a person may attach to a chat, in bytes (docs/attachments.md). */
    ATTACHMENT_MAX_BYTES: withDefault(int(1, 1024 * 1024 * 1024), DEFAULT_ATTACHMENT_MAX_BYTES),
    /** Most bytes of attachments one chat may hold, in bytes. */
    ATTACHMENTS_MAX_CHAT_BYTES: withDefault(int(1, 16 * 1024 * 1024 * 1024), DEFAULT_ATTACHMENTS_MAX_CHAT_BYTES),
    /** Open connections the server holds in all (WebSockets included); past it new ones are closed at once. 0: no cap. */
    MAX_CONNECTIONS: withDefault(int(0, 1_000_000), 4_000),
    /**
     * Open connections from one client address (IPv6: one /64); past it new ones are closed
     * at once. Behind a reverse proxy every client has the proxy's address: set 0 (off) there
     * or well above the proxy's connections, and let the proxy limit per client.
     */
    MAX_CONNECTIONS_PER_ADDRESS: withDefault(int(0, 1_000_000), 200),
    /** A request's headers must arrive within this (slow-header clients are closed). */
    HTTP_HEADERS_TIMEOUT_MS: withDefault(int(1_000, 60_000), 10_000),
    /**
     * A connection with nothing sent either way for this long is closed. At least 30 s:
     * Socket.IO's long-polling holds a request up to its 25 s heartbeat.
     */
    HTTP_IDLE_TIMEOUT_MS: withDefault(int(30_000, 600_000), 30_000),
    /** Large reads (a chat's history pages, exports, whole tool outputs, model requests) one person runs at once; more wait briefly or are refused. */
    MAX_READS_PER_PERSON: withDefault(int(1, 100), 3),

    OPENAI_BASE_URL: opt(z.url()),
    OPENAI_API_KEY: opt(z.string()),
    /** With no model configured the offline demo model answers. */
    MODEL: opt(z.string().min(1)),
    /** Model used for condensing results and compacting context; defaults to MODEL. */
    SYSTEM_MODEL: opt(z.string().min(1)),
    /** Model prices in USD per million tokens (input, output), for cost figures; unset: 0. */
    MODEL_PRICE_INPUT: opt(z.coerce.number().nonnegative()),
    MODEL_PRICE_OUTPUT: opt(z.coerce.number().nonnegative()),
    MODEL_TIMEOUT_MS: withDefault(int(1_000, 600_000), 120_000),
    MODEL_MAX_RETRIES: withDefault(int(0, 10), 2),
    /** Context budget of the master agent, in tokens. */
    CONTEXT_TOKENS: withDefault(int(2_000, 2_000_000), 100_000),
    /** Pause between streamed chunks (a few words) of the offline demo model, so streaming is visible. */
    DEMO_CHUNK_DELAY_MS: withDefault(int(0, 5_000), 40),
    /**
     * Pause before each reply of the offline demo model starts (about: ±50 % per request), as
     * a real model's time to first token. With the chunk delay, a two-subagent turn lasts about
     * 12-14 s, slow enough to watch its panels; 0 (the browser tests) makes it as fast as streaming.
     */
    DEMO_REPLY_DELAY_MS: withDefault(int(0, 60_000), 1_500),

    WORKSPACE_DIR: withDefault(z.string(), "workspace"),
    URL_FETCH_ENABLED: withDefault(bool, "false"),
    /** Lets file_write and file_edit change files under `.git` (hooks and config there run code). */
    ALLOW_GIT_WRITES: withDefault(bool, "false"),
    SUBAGENTS_FILE: opt(z.string()),
    /** JSON file of OpenAI-compatible endpoints whose models a person may pick per chat (see endpoints.example.json); unset: MODEL's alone. */
    ENDPOINTS_FILE: opt(z.string()),
    /** JSON or YAML file of MCP tool servers (see mcp.example.yaml); unset: none. */
    MCP_CONFIG_FILE: opt(z.string()),
    /**
     * The key (32 bytes, base64) that seals people's tokens for MCP servers with `oauth`
     * (docs/mcp-auth.md); unset: derived from SESSION_SECRET with HKDF.
     */
    MCP_TOKEN_KEY: opt(
      z.string().refine((value) => Buffer.from(value, "base64").length === 32, "must be 32 bytes in base64 (openssl rand -base64 32)"),
    ),
    MAX_SPAWN_DEPTH: withDefault(int(1, 10), 3),
    MAX_CHILDREN_PER_AGENT: withDefault(int(1, 50), 5),
    MAX_RESULT_TOKENS: withDefault(int(100, 1_000_000), 4_000),
    SUBAGENT_TIMEOUT_MS: withDefault(int(1_000, 3_600_000), 300_000),
    /** The master's watchdog: a whole turn, subagents included, is stopped after this long. */
    TURN_TIMEOUT_MS: withDefault(int(1_000, 24 * 3_600_000), 1_800_000),
    /**
     * A turn's default budget, subagents included (a sender may set another per turn):
     * tokens as the provider reports them, dollars where prices are known. Unset: none.
     */
    TURN_BUDGET_TOKENS: opt(z.coerce.number().int().positive()),
    TURN_BUDGET_USD: opt(z.coerce.number().positive().finite()),
    /**
     * What one person may spend per UTC day and per UTC month, every chat and process
     * together (counted in MongoDB). Unset: no limit.
     */
    QUOTA_DAILY_TOKENS: opt(z.coerce.number().int().positive()),
    QUOTA_MONTHLY_TOKENS: opt(z.coerce.number().int().positive()),
    QUOTA_DAILY_USD: opt(z.coerce.number().positive().finite()),
    QUOTA_MONTHLY_USD: opt(z.coerce.number().positive().finite()),
    /**
     * A tool call waiting for a person's approval ends as denied ("expired") after this long,
     * and a tool's question nobody answers expires after the same time. The watchdogs above
     * do not count either wait.
     */
    APPROVAL_TIMEOUT_MS: withDefault(int(1_000, 24 * 3_600_000), 600_000),
    /**
     * Host names (comma-separated) on a private network that remote A2A agents made in the app
     * may reach; the operator's SUBAGENTS_FILE agents reach their own card's host anyway.
     */
    A2A_ALLOWED_HOSTS: withDefault(z.string(), "").transform((list) =>
      list
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    ),
    /**
     * Serves Delegate itself as an A2A agent: its card at /.well-known/agent-card.json and
     * JSON-RPC at /a2a/jsonrpc, for callers holding an API token (docs/a2a-server.md).
     */
    A2A_SERVER_ENABLED: withDefault(bool, "false"),
    /** The operator's subagent definitions (comma-separated names) the agent card lists as skills besides the master. */
    A2A_SERVER_SKILLS: withDefault(z.string(), ""),
    /** A remote A2A agent that sends nothing for this long is given up on and its task cancelled. */
    A2A_IDLE_TIMEOUT_MS: withDefault(int(1_000, 3_600_000), 120_000),
    /** The master's step limit (model requests per turn). `MAX_TURNS`, its old name, is still read. */
    MAX_STEPS: withDefault(int(1, 200), 25),
    /**
     * Tool calls one model reply may have run; the calls beyond get an error result asking
     * for them again. Bounded by the calls a session file's step may hold, so what a turn
     * records can always be imported again.
     */
    MAX_TOOL_CALLS_PER_REPLY: withDefault(int(1, 1_000), 200),
    /**
     * The metadata footer (runtime, steps, tokens, cost) under each subagent result the
     * parent's model reads, so it can weigh what a result cost. On by default; off keeps the
     * parent's context to the result alone.
     */
    RESULT_FOOTER: withDefault(bool, "true"),

    /**
     * Scale-out (docs/scale-out.md): several app processes share this Redis (Socket.IO's adapter, the
     * per-chat event streams, command routing) and the MongoDB. Unset: one process, as before,
     * and no Redis connection is ever attempted.
     */
    REDIS_URL: opt(z.string().regex(/^rediss?:\/\//, "must start with redis:// or rediss://")),
    /** A running turn's lease in MongoDB lives this long and is renewed every third of it; another process ends a turn whose lease expired. */
    LEASE_MS: withDefault(int(1_000, 600_000), 10_000),
    /** Names this process in leases, logs and the health check; defaults to hostname:pid:random. */
    INSTANCE_ID: opt(z.string().trim().min(1).max(200)),

    /**
     * The bearer token `/metrics` asks of a scraper outside the loopback interface
     * (`Authorization: Bearer <token>`; docs/metrics.md). Unset: only the loopback interface
     * may read the metrics. At least 16 characters: it guards figures about everyone's use.
     */
    METRICS_TOKEN: opt(z.string().trim().min(16, "must be at least 16 characters").max(500)),

    /** Single sign-on over OpenID Connect: the provider's issuer URL (discovered lazily). */
    OIDC_ISSUER: opt(z.url()),
    OIDC_CLIENT_ID: opt(z.string().min(1).max(500)),
    /** Unset: a public client (PKCE alone), when the provider allows one. */
    OIDC_CLIENT_SECRET: opt(z.string().min(1)),
    /** The sign-in button's text. */
    OIDC_LABEL: withDefault(z.string().trim().min(1).max(60), "Sign in with SSO"),

    /**
     * Web Push's VAPID key pair (base64url, as `npx web-push generate-vapid-keys` prints it),
     * both or neither. Unset: the app makes a pair once and keeps it in MongoDB.
     */
    VAPID_PUBLIC_KEY: opt(
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_-]{80,100}$/, "must be the base64url public key (87 characters)"),
    ),
    VAPID_PRIVATE_KEY: opt(
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_-]{40,50}$/, "must be the base64url private key (43 characters)"),
    ),
    /** Who push services may contact about this app's pushes: a mailto: or https: URL. Unset: PUBLIC_URL, else a mailto: placeholder. */
    VAPID_SUBJECT: opt(
      z
        .string()
        .trim()
        .regex(/^(mailto:|https:\/\/)\S+$/, "must be a mailto: or https:// URL"),
    ),
  })
  .superRefine(checkOidc)
  .superRefine(checkVapid);

/** A VAPID key pair is one thing: half of it signs nothing a push service accepts. */
function checkVapid(value: { VAPID_PUBLIC_KEY?: string; VAPID_PRIVATE_KEY?: string }, ctx: z.RefinementCtx): void {
  if (value.VAPID_PUBLIC_KEY && !value.VAPID_PRIVATE_KEY)
    ctx.addIssue({ code: "custom", path: ["VAPID_PRIVATE_KEY"], message: "is required with VAPID_PUBLIC_KEY" });
  if (value.VAPID_PRIVATE_KEY && !value.VAPID_PUBLIC_KEY)
    ctx.addIssue({ code: "custom", path: ["VAPID_PUBLIC_KEY"], message: "is required with VAPID_PRIVATE_KEY" });
}

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const renamed = blankAsUndefined(source.MAX_STEPS) === undefined ? { ...source, MAX_STEPS: source.MAX_TURNS } : source;
  const result = envSchema.safeParse(renamed);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new EnvError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  // One shared password and personal accounts are two answers to the same question.
  if (result.data.AUTH_MODE === "sso" && !(result.data.OIDC_ISSUER && result.data.OIDC_CLIENT_ID)) {
    throw new EnvError(
      "Invalid configuration:\n  AUTH_MODE: sso needs a provider to sign in with (set OIDC_ISSUER, OIDC_CLIENT_ID and PUBLIC_URL)",
    );
  }
  if (result.data.APP_PASSWORD && result.data.AUTH_MODE !== "single") {
    throw new EnvError(
      `Invalid configuration:\n  APP_PASSWORD: cannot be used with AUTH_MODE=${result.data.AUTH_MODE}; accounts replace the shared password (unset APP_PASSWORD, or set AUTH_MODE=single)`,
    );
  }
  return result.data;
}

/**
 * A variable that configuration names rather than this schema (a subagent's `apiKeyEnv`),
 * read with the same rule: blank counts as unset.
 */
export function variable(name: string, source: Record<string, string | undefined> = process.env): string | undefined {
  const value = source[name];
  return value === undefined || value.trim() === "" ? undefined : value;
}

const logSchema = z.object({ NODE_ENV: nodeEnv, ...logVariables, INSTANCE_ID: opt(z.string().trim().min(1).max(200)) });
export type LogEnv = z.infer<typeof logSchema>;

/**
 * The log's variables alone, read before the whole configuration: the server needs its
 * logger to report a configuration that does not parse. A bad value here falls back to
 * the defaults (the full parse then names it).
 */
export function logEnv(source: Record<string, string | undefined>): LogEnv {
  const { shape } = logSchema;
  return {
    NODE_ENV: shape.NODE_ENV.safeParse(source.NODE_ENV).data ?? "development",
    LOG_LEVEL: shape.LOG_LEVEL.safeParse(source.LOG_LEVEL).data ?? "info",
    LOG_FORMAT: shape.LOG_FORMAT.safeParse(source.LOG_FORMAT).data ?? "auto",
    INSTANCE_ID: shape.INSTANCE_ID.safeParse(source.INSTANCE_ID).data,
  };
}

let cached: Env | undefined;

/** The process configuration, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
