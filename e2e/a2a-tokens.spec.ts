import { expect, test, type Page } from "@playwright/test";
import { scriptedReply } from "../test/support/model/scripted-openai-server";
import { lowContrast } from "./support/contrast";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { shot } from "./fixtures";

/**
 * The tokens page in Chromium with the A2A server on: reached from the sidebar, a token
 * made from the keyboard, its secret shown once with a copy button and accepted by the
 * A2A endpoint, gone from the page after a reload, then revoked after a confirmation, and
 * refused by the endpoint from then on; readable in dark mode at a phone's width.
 */

let app: HostileApp;
let page: Page;

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  page = await browser.newPage();
  app = await startHostileApp({ workspaceFiles: {}, env: { A2A_SERVER_ENABLED: "true" }, handler: () => scriptedReply({ text: ["ok"] }) });
});
test.afterAll(async () => {
  await page?.close();
  await app?.stop();
});

/** What the A2A endpoint answers a `tasks/get` sent with `secret`. */
async function endpointStatus(secret: string): Promise<number> {
  const res = await fetch(`${app.baseUrl}/a2a/jsonrpc`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "none" } }),
  });
  await res.arrayBuffer();
  return res.status;
}

test("a token is made from the keyboard, its secret shown once, and revoked after a confirmation", async () => {
  await page.goto(`${app.baseUrl}/`);
  await page.getByTestId("sidebar-tokens").click();
  await page.waitForURL(/\/tokens$/);
  await expect(page.getByRole("heading", { name: "Tokens", exact: true })).toBeVisible();
  await expect(page.getByText("No tokens yet.")).toBeVisible();

  await page.getByTestId("token-name").fill("the build agent");
  await page.getByTestId("token-name").press("Enter");
  const shown = page.getByTestId("token-secret");
  await expect(shown).toContainText("the build agent");
  const secret = (await shown.locator("code").textContent()) ?? "";
  expect(secret).toMatch(/^dlg_[A-Za-z0-9_-]{43}$/);
  await expect(shown.getByRole("button", { name: "Copy the secret" })).toBeVisible();
  await expect(page.getByTestId("token-row")).toHaveCount(1);
  await expect(page.getByTestId("token-row")).toContainText("never used");
  await shot(page, "tokens-page-secret");
  expect(await endpointStatus(secret)).toBe(200);

  // After a reload the secret is nowhere on the page; the token's use is.
  await page.reload();
  await expect(page.getByTestId("token-row")).toContainText("last used");
  expect(await page.content()).not.toContain(secret.slice(4));

  // Revoking asks first; keeping changes nothing.
  await page.getByTestId("token-revoke").click();
  await page.getByRole("button", { name: "Keep" }).click();
  await expect(page.getByTestId("token-revoke")).toBeVisible();
  await page.getByTestId("token-revoke").focus();
  await page.keyboard.press("Enter");
  await page.getByTestId("token-revoke-confirm").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("token-row")).toContainText("revoked");
  expect(await endpointStatus(secret)).toBe(401);
});

test("the page reads at a phone's width, in dark mode", async () => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(page.getByTestId("token-row")).toHaveCount(1);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  expect(await lowContrast(page)).toEqual([]);
  await shot(page, "tokens-page-phone-dark");
});
