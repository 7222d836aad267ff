import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { startAppProcess, type AppProcess } from "./app-process";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Read-only share links in real browsers: the owner creates one from the chat header, a
 * second browser context opens it (the chat, its panels and the inspector, live; nothing
 * to act with, nothing of the owner's other chats), the owner revokes it and the open tab
 * says so at once; with APP_PASSWORD a link needs the login unless it is public.
 */
async function attach(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await shot(page, name);
  await testInfo.attach(name, { body: await page.screenshot(), contentType: "image/png" });
}

/** Opens the share dialog, creates a link with the given options and returns its address. */
async function createLink(page: Page, options: { inspector?: boolean; public?: boolean } = {}): Promise<string> {
  await page.getByTestId("share-button").click();
  const dialog = page.getByTestId("share-dialog");
  await expect(dialog).toBeVisible();
  if (options.inspector) await dialog.getByTestId("share-inspector").check();
  if (options.public) await dialog.getByTestId("share-public").check();
  await dialog.getByTestId("share-create").click();
  const url = await dialog.getByTestId("share-url").inputValue();
  expect(url).toMatch(/\/s\/[A-Za-z0-9_-]{43}$/);
  return url;
}

test("an owner shares a chat read-only, a second browser watches it live, and revoking ends it at once", async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(150_000);
  const ownerChat = await startChat(page, "Investigate the open bugs and the release plan");
  await waitForTurnEnd(page);
  // A second chat of the owner's, which the viewer must have no way to.
  const otherChat = await startChat(page, "hello");
  await waitForTurnEnd(page);
  await page.goto(ownerChat);
  await waitForTurnEnd(page);

  const url = await createLink(page, { inspector: true });
  await expect(page.getByTestId("share-link-row")).toHaveCount(1);
  await expect(page.getByTestId("share-link-row")).toContainText(/expires .*Sign-in needed · inspector/s);
  await attach(page, testInfo, "share-dialog-created");
  // Escape closes the dialog and gives focus back to its button.
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("share-dialog")).toHaveCount(0);
  await expect(page.getByTestId("share-button")).toBeFocused();

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await viewer.goto(url);
  await expect(viewer.getByTestId("shared-badge")).toBeVisible();
  await expect(viewer.getByTestId("message-assistant")).toHaveCount(1);
  await expect(lastAssistant(viewer)).toHaveAttribute("data-status", "completed");
  // Panels open to audit their tool calls, and the inspector is there as the owner allowed.
  const panel = viewer.getByTestId("subagent-panel").first();
  await panel.getByTestId("subagent-toggle").first().click();
  await expect(panel.getByTestId("tool-call").first()).toBeVisible();
  await expect(viewer.getByTestId("inspect-context").first()).toBeVisible();
  // Nothing to act with, and no way to the owner's other chats.
  await expect(viewer.getByTestId("composer")).toHaveCount(0);
  await expect(viewer.getByTestId("steer")).toHaveCount(0);
  await expect(viewer.getByTestId("kill")).toHaveCount(0);
  await expect(viewer.getByTestId("retry")).toHaveCount(0);
  await expect(viewer.getByTestId("share-button")).toHaveCount(0);
  await expect(viewer.getByTestId("export-button")).toHaveCount(0);
  await expect(viewer.locator("#session-sidebar")).toHaveCount(0);
  await expect(viewer.locator('a[href^="/c/"], a[href="/"]')).toHaveCount(0);
  await attach(viewer, testInfo, "share-viewer");

  // The inspector opens on the master's calls through the link.
  await viewer.getByTestId("turn-stats").last().getByTestId("inspect-context").click();
  // Its code loads on demand, then the calls: two round trips, which a busy machine can make slow.
  await expect(viewer.getByTestId("context-inspector").getByTestId("inspector-call").first()).toBeVisible({ timeout: 45_000 });
  await viewer.keyboard.press("Escape");
  await expect(viewer.getByTestId("context-inspector")).toHaveCount(0);

  // Live: the owner's next turn streams into the viewer's open tab.
  await send(page, "hello");
  await expect(viewer.getByTestId("message-assistant")).toHaveCount(2, { timeout: 30_000 });
  await expect(lastAssistant(viewer)).toHaveAttribute("data-status", "completed", { timeout: 45_000 });

  // The owner's other chat, opened directly in the viewer's browser: not theirs, not found.
  const other = await viewerContext.newPage();
  await other.goto(otherChat);
  await expect(other.getByText("This chat does not exist, or it was deleted.")).toBeVisible();
  await other.close();

  // Revoked: the open tab says so at once, and a reload finds nothing.
  await page.getByTestId("share-button").click();
  await page.getByTestId("share-revoke").click();
  await expect(page.getByTestId("share-link-row")).toHaveCount(0);
  await expect(viewer.getByTestId("share-ended")).toContainText("This share link was revoked.", { timeout: 5_000 });
  await expect(viewer.getByTestId("message-assistant")).toHaveCount(0);
  await attach(viewer, testInfo, "share-revoked-open-tab");
  await viewer.reload();
  await expect(viewer.getByTestId("share-ended")).toContainText("This shared chat does not exist.");
  await attach(viewer, testInfo, "share-revoked-reload");
  await viewerContext.close();

  // On a phone the dialog stays on the screen, whole.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.reload();
  await page.getByTestId("share-button").click();
  const box = (await page.getByTestId("share-dialog").boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await attach(page, testInfo, "share-dialog-phone");
});

test.describe("with APP_PASSWORD", () => {
  const PASSWORD = "neap tide at noon";
  let app: AppProcess;
  let dataDir: string;
  test.beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "delegate-share-"));
    const mongoUri = new URL(`share_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
    app = await startAppProcess({ mongoUri, dataDir, env: { APP_PASSWORD: PASSWORD, DEMO_CHUNK_DELAY_MS: "0" }, quiet: true });
  });
  test.afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Signs in on the login page and waits until it has left it (the page's own navigation must not race the test's next one). */
  async function logIn(page: Page): Promise<void> {
    await page.getByTestId("login-password").fill(PASSWORD);
    await page.getByTestId("login-submit").click();
    await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  }

  test("a link needs the login unless the owner made it public", async ({ browser }, testInfo) => {
    test.setTimeout(120_000);
    const owner = await (await browser.newContext({ baseURL: app.baseUrl })).newPage();
    await owner.goto("/");
    await logIn(owner);
    await startChat(owner, "hello");
    await waitForTurnEnd(owner);
    const privateUrl = await createLink(owner);
    await owner.getByTestId("share-dialog").getByTestId("share-public").check();
    await owner.getByTestId("share-dialog").getByTestId("share-create").click();
    await expect(owner.getByTestId("share-link-row")).toHaveCount(2);
    const publicUrl = await owner.getByTestId("share-dialog").getByTestId("share-url").inputValue();
    expect(publicUrl).not.toBe(privateUrl);

    // Not logged in: the private link goes through the login page and back.
    const colleague = await (await browser.newContext()).newPage();
    await colleague.goto(privateUrl);
    await expect(colleague).toHaveURL(/\/login\?next=%2Fs%2F/);
    await attach(colleague, testInfo, "share-login-required");
    await logIn(colleague);
    await expect(colleague).toHaveURL(privateUrl);
    await expect(lastAssistant(colleague)).toHaveAttribute("data-status", "completed");
    await expect(colleague.getByTestId("composer")).toHaveCount(0);
    // This link was made without the inspector: it is not offered.
    await expect(colleague.getByTestId("turn-stats")).toBeVisible();
    await expect(colleague.getByTestId("inspect-context")).toHaveCount(0);

    // The public link opens for anyone, with no login.
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(publicUrl);
    await expect(stranger).toHaveURL(publicUrl);
    await expect(lastAssistant(stranger)).toHaveAttribute("data-status", "completed");
    await attach(stranger, testInfo, "share-public-no-login");
    // Everything else still asks for the login.
    await stranger.goto(`${app.baseUrl}/`);
    await expect(stranger).toHaveURL(/\/login/);
  });
});
