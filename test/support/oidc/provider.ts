import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider from "oidc-provider";
import { freePort } from "@/test/support/free-port";

/**
 * A real OpenID provider for the tests: `oidc-provider` 9 (the certified implementation)
 * on 127.0.0.1, one confidential client registered with the redirect URI of the app under
 * test, PKCE required. Its login step is a tiny interaction of our own: a page with an
 * account field (any account in `accounts`, no password) and a cancel link, which a browser
 * can use as is; `signIn(url, account)` plays the person at the provider over real HTTP
 * (reading that page, with the provider's own cookies) and returns where the provider
 * sends the browser back.
 *
 * `tamperIdTokens` turns it into a hostile provider on purpose: the token endpoint's ID
 * tokens get changed claims (another audience, a wrong nonce, an expired token), signed
 * with the provider's real key, or left with a signature that no longer matches.
 */
export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProviderOptions {
  redirectUri: string;
  accounts: Record<string, ProviderAccount>;
  /** Listen here (e.g. a port chosen before the provider is up); else a free one. */
  port?: number;
  /** The client's secret; else a random one. */
  clientSecret?: string;
  /** Also put email and name in the ID token; by default (as the spec says) they are only in UserInfo. */
  claimsInIdToken?: boolean;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Every request the provider received, as "METHOD /path". */
  requests: string[];
  /** Plays the person: follows the authorization URL, signs in as `account`, returns the redirect back to the app. */
  signIn(authorizationUrl: string, account: string): Promise<URL>;
  /** Plays a person who cancels at the provider; returns the redirect back to the app (with `error`). */
  cancel(authorizationUrl: string): Promise<URL>;
  /** Changes the claims of every ID token issued from now on; null stops. `resign: false` keeps the old signature. */
  tamperIdTokens(change: ((claims: JWTPayload) => JWTPayload) | null, options?: { resign?: boolean }): void;
  /** Changes what the UserInfo endpoint answers from now on; null stops. */
  tamperUserinfo(change: ((claims: Record<string, unknown>) => Record<string, unknown>) | null): void;
  close(): Promise<void>;
}

const CLIENT_ID = "delegate-test";
const MAX_HOPS = 10;

export async function startTestProvider(options: TestProviderOptions): Promise<TestProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const signingKey = await importJWK(signingJwk, "RS256");

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: !options.claimsInIdToken,
    pkce: { required: () => true },
    // Short lives, set explicitly (the defaults print a notice each).
    ttl: { AuthorizationCode: 60, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, id: string) {
      const account = options.accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    // Consent is not what these tests are about: every sign-in grants the scopes asked for.
    async loadExistingGrant(ctx: { oidc: { client?: { clientId: string }; session?: { accountId?: string }; provider: Provider } }) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });

  let tamper: { change: (claims: JWTPayload) => JWTPayload; resign: boolean } | null = null;
  let tamperInfo: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  provider.use(async (ctx, next) => {
    await next();
    if (tamperInfo && ctx.path === "/me" && ctx.status === 200 && ctx.body && typeof ctx.body === "object") {
      ctx.body = tamperInfo(ctx.body as Record<string, unknown>);
    }
    const body = ctx.body as { id_token?: string } | undefined;
    if (!tamper || ctx.path !== "/token" || ctx.status !== 200 || typeof body?.id_token !== "string") return;
    const claims = tamper.change(decodeJwt(body.id_token));
    if (tamper.resign) {
      const header = decodeProtectedHeader(body.id_token);
      body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: header.kid }).sign(signingKey);
    } else {
      const [head, , signature] = body.id_token.split(".");
      body.id_token = `${head}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    }
  });

  const handle = provider.callback();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${new URL(req.url ?? "/", issuer).pathname}`);
    const page = /^\/interaction\/([\w-]+)$/.exec(req.url ?? "");
    if (page) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(page[1]!));
      return;
    }
    const interaction = /^\/interaction\/[\w-]+\/(login|abort)(\?|$)/.exec(req.url ?? "");
    if (!interaction) return handle(req, res);
    const params = new URL(req.url ?? "/", issuer).searchParams;
    const result =
      interaction[1] === "login"
        ? { login: { accountId: params.get("account") ?? "" } }
        : { error: "access_denied", error_description: "The person cancelled." };
    provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false }).catch((error: unknown) => {
      res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  // Never keeps the test process alive; close() ends it sooner.
  server.unref();

  /** Follows redirects at the provider, with its cookies, until it sends the browser back to the app. */
  async function drive(authorizationUrl: string, step: "login" | "abort", account = ""): Promise<URL> {
    const jar = new Map<string, string>();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      if (url.href.startsWith(options.redirectUri)) return url;
      if (/^\/interaction\/[\w-]+$/.test(url.pathname)) {
        // The page a browser would show: its form (or its cancel link) says where to go.
        const html = await (await fetch(url)).text();
        const action = step === "login" ? /<form[^>]* action="([^"]+)"/.exec(html)?.[1] : /<a[^>]* href="([^"]+)"/.exec(html)?.[1];
        if (!action) throw new Error(`no ${step} on the provider's page: ${html.slice(0, 300)}`);
        url = new URL(action, url);
        if (step === "login") url.searchParams.set("account", account);
      }
      const res = await fetch(url, { redirect: "manual", headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair!.indexOf("=");
        const name = pair!.slice(0, eq).trim();
        const value = pair!.slice(eq + 1).trim();
        if (value && !/expires=Thu, 01 Jan 1970/i.test(line)) jar.set(name, value);
        else jar.delete(name);
      }
      const location = res.headers.get("location");
      if (!location) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 300)}`);
      url = new URL(location, url);
    }
    throw new Error("the provider never sent the browser back");
  }

  return {
    issuer,
    clientId: CLIENT_ID,
    clientSecret,
    requests,
    signIn: (authorizationUrl, account) => drive(authorizationUrl, "login", account),
    cancel: (authorizationUrl) => drive(authorizationUrl, "abort"),
    tamperIdTokens(change, tamperOptions) {
      tamper = change ? { change, resign: tamperOptions?.resign ?? true } : null;
    },
    tamperUserinfo(change) {
      tamperInfo = change;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The provider's sign-in page: a person (or Playwright) types an account name, or cancels. */
function loginPage(uid: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head>
<body>
<h1>Test provider</h1>
<form method="get" action="/interaction/${uid}/login">
  <label>Account <input name="account" autocomplete="username" required></label>
  <button type="submit">Sign in</button>
</form>
<p><a href="/interaction/${uid}/abort">Cancel</a></p>
</body></html>
`;
}
