import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import {
  startAuthorizationServer,
  startProtectedMcpServer,
  type AuthorizationServer,
  type ProtectedMcpServer,
} from "@/test/support/oidc/mcp-auth-servers";
import { startAppProcess, type AppProcess } from "./app-process";
import { shot } from "./fixtures";

/**
 * Signing in to an MCP server in Chromium: the app with a server that needs each person's
 * sign-in, a real authorization server (oidc-provider) and a real MCP server that checks
 * each bearer, all on loopback. The person presses Sign in in the tool servers menu, signs
 * in at the authorization server's page, comes back to the app with the menu open and the
 * server's tool listed, and signs out again.
 */
test.describe("MCP sign-in", () => {
  test.describe.configure({ mode: "serial" });
  let as: AuthorizationServer;
  let vault: ProtectedMcpServer;
  let app: AppProcess;
  let dir: string;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    as = await startAuthorizationServer({ accessTokenTtlS: 600 });
    vault = await startProtectedMcpServer(as.issuer);
    dir = mkdtempSync(path.join(tmpdir(), "delegate-mcp-sign-in-"));
    const config = path.join(dir, "mcp.json");
    writeFileSync(config, JSON.stringify({ servers: { vault: { url: vault.url, oauth: true } } }));
    app = await startAppProcess({
      mongoUri: new URL(`mcp_sign_in_${Date.now()}`, process.env.E2E_MONGODB_URI).toString(),
      dataDir: dir,
      quiet: true,
      env: { MCP_CONFIG_FILE: config },
    });
  });
  test.afterAll(async () => {
    await app?.stop();
    await vault?.close();
    await as?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("sign in through the authorization server, see the tool, sign out", async ({ page }) => {
    await page.goto(app.baseUrl);
    const button = page.getByTestId("tool-servers-button");
    await expect(button).toHaveAccessibleName("Tool servers: 0 of 1 connected", { timeout: 30_000 });
    await button.click();
    const server = page.getByTestId("tool-server").filter({ hasText: "vault" });
    await expect(server).toContainText("needs sign-in");
    await server.getByRole("button", { name: "Sign in" }).click();

    // The authorization server's own page, then back to the app.
    await page.getByLabel("Account").fill("ada");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${app.baseUrl}/`);
    await expect(page.getByTestId("tool-server-sign-in-outcome")).toHaveText("Signed in to vault.");
    await expect(server).toContainText("connected");
    await expect(server).toContainText("vault.whoami");
    await page.emulateMedia({ colorScheme: "dark" });
    await shot(page, "mcp-sign-in-connected");

    await server.getByRole("button", { name: "Sign out" }).click();
    await expect(server).toContainText("needs sign-in");
    await expect(server).not.toContainText("vault.whoami");
  });
});
