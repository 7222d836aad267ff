import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWK } from "jose";
import Provider from "oidc-provider";
import { freePort } from "@/test/support/free-port";

/**
 * The two servers of an MCP sign-in, real and on 127.0.0.1:
 *
 * - an OAuth authorization server: `oidc-provider` with dynamic registration, resource
 *   indicators (each access token is a JWT for one resource), PKCE, refresh tokens and a
 *   short access-token life; its login is a page with an account field, as the SSO tests'
 *   provider has, which `signIn` plays over HTTP with the provider's cookies;
 * - an MCP server (the SDK's McpServer over Streamable HTTP) that answers 401 with
 *   `WWW-Authenticate: Bearer resource_metadata=…` unless the bearer is a valid token for
 *   it (checked against the provider's keys, audience and expiry), and serves its
 *   protected resource metadata. Its one tool, `whoami`, answers with the token's subject.
 */
export interface AuthorizationServer {
  issuer: string;
  /** Every token request's grant type, in order ("authorization_code", "refresh_token"). */
  grants: string[];
  /** Plays the person at the provider; returns where it sends the browser back. */
  signIn(authorizationUrl: string, account: string, redirectUri: string): Promise<URL>;
  close(): Promise<void>;
}

export interface ProtectedMcpServer {
  url: string;
  /** What the protected resource metadata names as authorization server; change it to point elsewhere. */
  metadata: { resource: string; authorization_servers: string[]; scopes_supported: string[] };
  /** Bearers refused, and why. */
  refusals: string[];
  /** When set, the metadata address answers with a redirect here instead. */
  redirectMetadataTo?: string;
  close(): Promise<void>;
}

const MAX_HOPS = 10;
export const MCP_SCOPE = "tools";

export async function startAuthorizationServer(options: {
  accessTokenTtlS: number;
  /** A client registered ahead (confidential, client_secret_basic), as an operator would. */
  client?: { clientId: string; clientSecret: string; redirectUri: string };
}): Promise<AuthorizationServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: "mcp-test-key", alg: "RS256", use: "sig" };
  const provider = new Provider(issuer, {
    clients: options.client
      ? [
          {
            client_id: options.client.clientId,
            client_secret: options.client.clientSecret,
            redirect_uris: [options.client.redirectUri],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_basic",
            scope: MCP_SCOPE,
          },
        ]
      : [],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    pkce: { required: () => true },
    // Registration checks a client's scopes against these; tokens carry them for the resource.
    scopes: [MCP_SCOPE],
    ttl: { AuthorizationCode: 60, AccessToken: options.accessTokenTtlS, RefreshToken: 3600, Interaction: 600, Session: 600, Grant: 3600 },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Every token names the one resource it was asked for (the MCP server's address).
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf?.[0],
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: MCP_SCOPE,
          accessTokenTTL: options.accessTokenTtlS,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    // Refresh tokens for every code grant of a client allowed them (no offline_access dance).
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed("refresh_token"),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: id }) };
    },
    // Consent is not what these tests are about: a signed-in person grants what was asked for.
    async loadExistingGrant(ctx: {
      oidc: { client?: { clientId: string }; session?: { accountId?: string }; provider: Provider; params?: Record<string, unknown> };
    }) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope(MCP_SCOPE);
      const resource = ctx.oidc.params?.resource;
      for (const one of Array.isArray(resource) ? resource : resource ? [resource] : []) grant.addResourceScope(String(one), MCP_SCOPE);
      await grant.save();
      return grant;
    },
  });
  const grants: string[] = [];
  provider.on("grant.success", (ctx: unknown) => {
    const params = (ctx as { oidc?: { params?: { grant_type?: string } } }).oidc?.params;
    if (params?.grant_type) grants.push(params.grant_type);
  });
  const handle = provider.callback();
  const server: Server = createServer((req, res) => {
    const page = /^\/interaction\/([\w-]+)$/.exec(req.url ?? "");
    if (page) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(page[1]!));
      return;
    }
    if (/^\/interaction\/[\w-]+\/login(\?|$)/.test(req.url ?? "")) {
      const account = new URL(req.url ?? "/", issuer).searchParams.get("account") ?? "";
      provider
        .interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false })
        .catch((error: unknown) => {
          res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
        });
      return;
    }
    handle(req, res);
  });
  await listen(server, port);

  async function signIn(authorizationUrl: string, account: string, redirectUri: string): Promise<URL> {
    const jar = new Map<string, string>();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < MAX_HOPS; hop++) {
      if (url.href.startsWith(redirectUri)) return url;
      if (/^\/interaction\/[\w-]+$/.test(url.pathname)) {
        const html = await (await fetch(url)).text();
        const action = /<form[^>]* action="([^"]+)"/.exec(html)?.[1];
        if (!action) throw new Error(`no sign-in form on the provider's page: ${html.slice(0, 300)}`);
        url = new URL(action, url);
        url.searchParams.set("account", account);
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

  return { issuer, grants, signIn, close: () => stop(server) };
}

export async function startProtectedMcpServer(issuer: string): Promise<ProtectedMcpServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/mcp`;
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const refusals: string[] = [];
  const state: ProtectedMcpServer = {
    url,
    metadata: { resource: url, authorization_servers: [issuer], scopes_supported: [MCP_SCOPE] },
    refusals,
    close: () => stop(server),
  };

  const refuse = (res: ServerResponse, why: string) => {
    refusals.push(why);
    res
      .writeHead(401, { "www-authenticate": `Bearer resource_metadata="${metadataUrl}"`, "content-type": "application/json" })
      .end(JSON.stringify({ error: "invalid_token", error_description: why }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", origin).pathname;
    if (path.startsWith("/.well-known/oauth-protected-resource")) {
      if (state.redirectMetadataTo) res.writeHead(302, { location: state.redirectMetadataTo }).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state.metadata));
      return;
    }
    if (path !== "/mcp") return void res.writeHead(404).end();
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!bearer) return refuse(res, "no token");
    let subject: string;
    try {
      const { payload } = await jwtVerify(bearer, jwks, { issuer, audience: url });
      subject = String(payload.sub);
    } catch (error) {
      return refuse(res, error instanceof Error ? error.message : String(error));
    }
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const mcp = new McpServer({ name: "protected-test", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Says whose token called it." }, async () => ({
      content: [{ type: "text", text: `You are ${subject}.` }],
    }));
    // Stateless: each request is its own transport, so every request shows its own bearer.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    res.on("close", () => void mcp.close());
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString("utf8")));
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await listen(server, port);
  return state;
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  server.unref();
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function loginPage(uid: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test authorization server: sign in</title></head>
<body>
<form method="get" action="/interaction/${uid}/login">
  <label>Account <input name="account" required></label>
  <button type="submit">Sign in</button>
</form>
</body></html>
`;
}
