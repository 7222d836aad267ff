import { parseCookie, parseSetCookie } from "cookie";
import { createServer } from "node:http";
import type { Logger } from "@/lib/log";
import { ATTEMPT_COOKIE, createOidcClient, type OidcSettings, type VerifiedIdentity } from "@/server/accounts/oidc";
import { createSigner } from "@/server/accounts/signer";
import { handleOidc, type OidcRouteDeps } from "@/server/http/oidc-routes";
import { startTestProvider, type ProviderAccount, type TestProvider, type TestProviderOptions } from "./provider";

/**
 * The SSO routes on a bare node:http server (the accounts service lives on another
 * branch), in front of a real provider. The accounts service is a recording stand-in
 * (`fakeAccounts`): it signs anyone in except the subjects told to refuse, and hands out
 * a session cookie value naming the subject.
 */
export const SECRET = "an-sso-test-secret-of-at-least-32-characters";
export const SESSION_COOKIE = "dlg_session";

export interface SignInCall {
  identity: VerifiedIdentity;
  meta: { userAgent: string; address: string };
}

export interface SsoApp {
  baseUrl: string;
  redirectUri: string;
  provider: TestProvider;
  /** Every call the routes made to the accounts service. */
  signIns: SignInCall[];
  /** The previous dlg_session values the routes asked to end (session fixation). */
  ended: (string | undefined)[];
  /** Subjects the accounts service refuses. */
  refuse: Set<string>;
  logs: string[];
  /** Swaps the OIDC client (e.g. one with another clock); null: no provider configured. */
  useClient(settings?: Partial<OidcSettings> | null, now?: () => number): void;
  /** Starts an attempt in a "browser": the provider URL and that browser's attempt cookie. */
  start(next?: string): Promise<{ location: string; cookie: string; status: number }>;
  /** Sends the provider's redirect back to the app with `cookie` (a Cookie header). */
  callback(query: string, cookie: string): Promise<CallbackResult>;
  close(): Promise<void>;
}

export interface CallbackResult {
  status: number;
  location: string;
  /** The dlg_session value set, if any. */
  session: string | undefined;
  /** Whether the attempt cookie was cleared. */
  attemptCleared: boolean;
}

export async function startSsoApp(
  accounts: Record<string, ProviderAccount>,
  options: { provider?: Partial<TestProviderOptions>; providerUp?: boolean } = {},
): Promise<SsoApp> {
  const signIns: SignInCall[] = [];
  const refuse = new Set<string>();
  const ended: (string | undefined)[] = [];
  const logs: string[] = [];
  const record = (msg: string, meta?: object) => logs.push(`${msg} ${JSON.stringify(meta ?? {})}`);
  const log: Logger = { info: record, warn: record, error: record };
  const deps: OidcRouteDeps = {
    oidc: null,
    async signIn(identity, meta) {
      signIns.push({ identity, meta });
      return refuse.has(identity.subject) ? { refused: "this account is disabled" } : { cookieValue: `session-for-${identity.subject}` };
    },
    async endPreviousSession(cookies) {
      ended.push(cookies[SESSION_COOKIE]);
    },
    sessionCookie: (value) => `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax`,
    secureCookies: false,
    log,
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    handleOidc(req, res, url, parseCookie(req.headers.cookie ?? ""), deps)
      .then((handled) => {
        if (!handled) res.writeHead(404).end();
      })
      .catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const redirectUri = `${baseUrl}/api/auth/oidc/callback`;
  const provider = await startTestProvider({ redirectUri, accounts, ...options.provider });

  const app: SsoApp = {
    baseUrl,
    redirectUri,
    provider,
    signIns,
    ended,
    refuse,
    logs,
    useClient(settings, now) {
      if (settings === null) {
        deps.oidc = null;
        return;
      }
      deps.oidc = createOidcClient(
        {
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          redirectUri,
          timeoutS: 5,
          ...settings,
        },
        createSigner(SECRET),
        now,
      );
    },
    async start(next) {
      const res = await fetch(`${baseUrl}/api/auth/oidc/start${next === undefined ? "" : `?next=${encodeURIComponent(next)}`}`, {
        redirect: "manual",
      });
      const line = res.headers.getSetCookie().find((c) => c.startsWith(`${ATTEMPT_COOKIE}=`));
      return { status: res.status, location: res.headers.get("location") ?? "", cookie: line ? line.split(";")[0]! : "" };
    },
    async callback(query, cookie) {
      const res = await fetch(`${baseUrl}/api/auth/oidc/callback${query ? `?${query}` : ""}`, {
        redirect: "manual",
        headers: { cookie, "user-agent": "sso-test-browser" },
      });
      const set = res.headers.getSetCookie().map((line) => parseSetCookie(line));
      return {
        status: res.status,
        location: res.headers.get("location") ?? "",
        session: set.find((c) => c.name === SESSION_COOKIE)?.value,
        attemptCleared: set.some((c) => c.name === ATTEMPT_COOKIE && c.value === "" && c.maxAge === 0),
      };
    },
    async close() {
      await provider.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  app.useClient();
  return app;
}
