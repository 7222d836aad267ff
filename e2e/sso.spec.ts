import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { SSO_FAILURE_MESSAGES } from "@/lib/contracts/account";
import { startTestProvider, type TestProvider } from "@/test/support/oidc/provider";
import { freePort, startAppProcess, type AppProcess } from "./app-process";
import { shot } from "./fixtures";

/**
 * Single sign-on in Chromium: the app in sso mode, a real OpenID provider
 * (oidc-provider) on loopback, the browser going through both. A tampered state and an ID
 * token with the wrong nonce are refused: the browser lands back on the sign-in page with
 * the reason in plain words, and nothing is signed in.
 */
test.describe("single sign-on", () => {
  test.describe.configure({ mode: "serial" });
  let provider: TestProvider;
  let app: AppProcess;
  let dataDir: string;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    provider = await startTestProvider({
      redirectUri: `${appUrl}/api/auth/oidc/callback`,
      accounts: { ada: { email: "ada@example.com", email_verified: true, name: "Ada Lovelace" } },
    });
    dataDir = mkdtempSync(path.join(tmpdir(), "delegate-sso-"));
    app = await startAppProcess({
      mongoUri: new URL(`sso_${Date.now()}`, process.env.E2E_MONGODB_URI).toString(),
      dataDir,
      port,
      quiet: true,
      env: {
        AUTH_MODE: "sso",
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_LABEL: "Sign in with Test ID",
        PUBLIC_URL: appUrl,
      },
    });
  });
  test.afterAll(async () => {
    await app?.stop();
    await provider?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** From the sign-in page through the provider's own sign-in form, as a person would. */
  async function throughProvider(page: Page): Promise<void> {
    await page.goto(`${app.baseUrl}/`);
    await expect(page).toHaveURL(/\/login\?next=/);
    await page.getByTestId("sign-in-sso").click();
    await expect(page.getByRole("heading", { name: "Test provider" })).toBeVisible();
    await page.getByLabel("Account").fill("ada");
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  test("signs in through the provider and lands in the chat as the first (admin) account", async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}/login`);
    // sso mode: the provider's button only, no password form.
    await expect(page.getByTestId("sign-in-sso")).toHaveText(/Sign in with Test ID/);
    await expect(page.getByTestId("sign-in-form")).toHaveCount(0);
    await shot(page, "sso-sign-in");
    await throughProvider(page);
    await expect(page.getByTestId("composer")).toBeVisible();
    await page.getByTestId("account-menu-button").click();
    await expect(page.getByTestId("account-menu")).toContainText("Ada Lovelace");
    await expect(page.getByTestId("account-menu-admin")).toBeVisible();
    await context.close();
  });

  test("a tampered state on the way back is refused: the sign-in page says so, and nothing is signed in", async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The provider's way back to the app, rewritten: its sign-in form's answer is followed
    // here, hop by hop inside the provider (with the browser's cookies), and the browser is
    // sent to the app's callback with a forged state. (Redirect hops cannot be routed.)
    await page.route(`${provider.issuer}/interaction/*/login?**`, async (route) => {
      let response = await route.fetch({ maxRedirects: 0 });
      let location = response.headers()["location"];
      for (let hop = 0; hop < 5 && location && !location.includes("/api/auth/oidc/callback"); hop++) {
        response = await context.request.get(new URL(location, provider.issuer).toString(), { maxRedirects: 0 });
        location = response.headers()["location"];
      }
      if (!location) throw new Error("the provider did not send the browser back to the app");
      const back = new URL(location);
      back.searchParams.set("state", "forged");
      return route.fulfill({ status: 303, headers: { location: back.toString() } });
    });
    await throughProvider(page);
    await expect(page).toHaveURL(/\/login\?error=sso&reason=state/);
    await expect(page.getByText(SSO_FAILURE_MESSAGES.state)).toBeVisible();
    await page.goto(`${app.baseUrl}/`);
    await expect(page).toHaveURL(/\/login/);
    await context.close();
  });

  test("an ID token carrying another nonce is refused", async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    provider.tamperIdTokens((claims) => ({ ...claims, nonce: "another-attempts-nonce" }));
    try {
      await throughProvider(page);
      await expect(page).toHaveURL(/\/login\?error=sso&reason=nonce/);
      await expect(page.getByText(SSO_FAILURE_MESSAGES.nonce)).toBeVisible();
      await shot(page, "sso-refused");
    } finally {
      provider.tamperIdTokens(null);
    }
    await page.goto(`${app.baseUrl}/`);
    await expect(page).toHaveURL(/\/login/);
    await context.close();
  });
});
