import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type AuthState } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { startTestProvider, type TestProvider } from "@/test/support/oidc/provider";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { createOidcClient, type OidcClient } from "./oidc";
import { createLoginThrottle } from "./login-throttle";
import { createSigner } from "./signer";

/**
 * Single sign-on wired into the real app (sso mode): a real OpenID provider on loopback,
 * the app's OIDC routes, the accounts service and the socket handshake. The provider's
 * address is only known once the app listens, so the app is given a client that is
 * created right after (the routes read it per request).
 */

const SECRET = "sso-app-test-secret-of-at-least-32-chars";
let harness: Harness;
let provider: TestProvider;
let client: OidcClient | undefined;
const lateClient: OidcClient = {
  begin: (next) => client!.begin(next),
  complete: (query, cookie) => client!.complete(query, cookie),
};

beforeAll(async () => {
  harness = await startHarness("acct_sso_app", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    secret: SECRET,
    authMode: "sso",
    sso: { label: "Sign in with SSO", oidc: lateClient },
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
  });
  const redirectUri = `${harness.baseUrl}${ACCOUNT_ROUTES.ssoCallback}`;
  provider = await startTestProvider({
    redirectUri,
    accounts: {
      ada: { email: "ada@example.com", email_verified: true, name: "Ada" },
      eve: { email: "ada@example.com", email_verified: false, name: "Eve" },
    },
  });
  client = createOidcClient(
    { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri, timeoutS: 5 },
    createSigner(SECRET),
  );
}, 60_000);
afterAll(async () => {
  await provider?.close();
  await harness?.close();
});

/** Plays a browser: the app's start route, the provider's sign-in as `account`, the callback with this jar's cookies. */
async function ssoSignIn(jar: CookieJar, account: string, tamper?: (back: URL) => void): Promise<Response> {
  const start = await jar.fetch(`${ACCOUNT_ROUTES.ssoStart}?next=%2Fc%2Fsomewhere`);
  expect(start.status).toBe(302);
  const back = await provider.signIn(start.headers.get("location")!, account);
  tamper?.(back);
  return jar.fetch(`${back.pathname}${back.search}`);
}

describe("single sign-on in the app (AUTH_MODE=sso)", () => {
  it("signs the first person in as the admin, lands where they started, and the socket accepts the session", async () => {
    expect(harness.app.accounts).toBeDefined();
    const jar = new CookieJar(harness.baseUrl);
    // Not signed in: the page redirects to the sign-in page.
    expect((await jar.fetch("/")).headers.get("location")).toMatch(/^\/login/);
    const done = await ssoSignIn(jar, "ada");
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/c/somewhere");
    const state = (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body;
    expect(state.account).toMatchObject({ email: "ada@example.com", role: "admin", hasPassword: false });
    const socket = await harness.client(jar.header);
    expect(socket.connected).toBe(true);
    socket.disconnect();
  });

  it("refuses a tampered state and a callback replayed with another browser's attempt: nothing is signed in", async () => {
    const jar = new CookieJar(harness.baseUrl);
    const tampered = await ssoSignIn(jar, "ada", (back) => back.searchParams.set("state", "forged-state"));
    expect(tampered.headers.get("location")).toMatch(/^\/login\?error=sso&reason=/);
    expect((await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body.account).toBeNull();

    // Another browser's callback, sent with this browser's own attempt cookie: the state and nonce are not this attempt's.
    const other = new CookieJar(harness.baseUrl);
    const otherStart = await other.fetch(ACCOUNT_ROUTES.ssoStart);
    const back = await provider.signIn(otherStart.headers.get("location")!, "ada");
    await jar.fetch(ACCOUNT_ROUTES.ssoStart);
    const crossed = await jar.fetch(`${back.pathname}${back.search}`);
    expect(crossed.headers.get("location")).toMatch(/^\/login\?error=sso&reason=/);
    expect((await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body.account).toBeNull();
  });

  it("an identity claiming an account's email without the provider verifying it is refused, not matched to that account", async () => {
    const jar = new CookieJar(harness.baseUrl);
    const refused = await ssoSignIn(jar, "eve");
    expect(refused.headers.get("location")).toMatch(/^\/login\?error=sso&reason=/);
    expect((await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body.account).toBeNull();
  });

  it("the sign-in page is told SSO is on (the button) and password sign-in is off", async () => {
    const state = (await new CookieJar(harness.baseUrl).get<AuthState>(ACCOUNT_ROUTES.state)).body;
    expect(state).toMatchObject({ mode: "sso", sso: { label: "Sign in with SSO" }, signUpOpen: false });
    expect(
      (await new CookieJar(harness.baseUrl).post(ACCOUNT_ROUTES.signIn, { email: "ada@example.com", password: "whatever-long" })).status,
    ).toBeGreaterThanOrEqual(400);
  });
});
