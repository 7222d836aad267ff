import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, expect, test, type Page } from "@playwright/test";
import { CHROMIUM_ARGS } from "../playwright.config";
import { startAppProcess, type AppProcess } from "./app-process";
import { send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Delegate as an installable app (public/sw.js, components/pwa/): Chromium finds it
 * installable, the offline page opens at once with no network, the chat says when it is
 * offline, and after a sign-out nothing of a chat is left in Cache Storage.
 */
const OFFLINE_SHELL_TEXT = "You are offline — Delegate will reconnect when the network is back.";

/**
 * Until the app-shell worker controls the page. It claims the open pages when it
 * activates, but not a document whose navigation was already under way then: that one is
 * controlled from its next load, as a person's next visit would be.
 */
async function waitForWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  if (await page.evaluate(() => navigator.serviceWorker.controller === null)) await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

interface CachedEntry {
  cache: string;
  url: string;
  contentType: string;
  body: string;
}

/** Everything in Cache Storage, each entry with its body when it is text. */
function cacheStorage(page: Page): Promise<CachedEntry[]> {
  return page.evaluate(async () => {
    const entries: CachedEntry[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) {
        const response = await cache.match(request);
        const contentType = response?.headers.get("content-type") ?? "";
        const text = /text|json|javascript/.test(contentType) ? await response!.text() : "";
        entries.push({ cache: name, url: request.url, contentType, body: text });
      }
    }
    return entries;
  });
}

const pathOf = (url: string) => new URL(url).pathname;

const PROMPT = "Where is the retry logic?";

/** No chat address, API answer or socket transfer, and no page but the offline one, which holds no turn. */
function expectNothingOfTheChat(entries: CachedEntry[], chatId: string): void {
  for (const entry of entries) {
    const where = pathOf(entry.url);
    expect(where, entry.url).not.toMatch(/^\/(c|s)\/|^\/api\/|^\/socket\.io\//);
    expect(entry.body.includes(chatId), entry.url).toBe(false);
    expect(entry.body.includes(PROMPT), entry.url).toBe(false);
    // The app's scripts name the attribute, so only pages are read for it.
    if (entry.contentType.includes("text/html")) {
      expect(where).toBe("/offline");
      expect(entry.body.includes("data-turn-id"), entry.url).toBe(false);
    }
  }
}

test("Chromium finds the app installable once the worker controls the page; the manifest and worker are served as they should be", async ({
  page,
  baseURL,
}) => {
  // A browser profile of its own: Chromium offers no install in a private (incognito)
  // window, which is what a test's usual context is.
  const profile = mkdtempSync(path.join(tmpdir(), "delegate-profile-"));
  const persistent = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
    baseURL,
  });
  try {
    const installed = persistent.pages()[0] ?? (await persistent.newPage());
    await installed.goto("/");
    await waitForWorker(installed);
    const cdp = await persistent.newCDPSession(installed);
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    expect(installabilityErrors).toEqual([]);
    const manifest = await cdp.send("Page.getAppManifest");
    expect(manifest.errors).toEqual([]);
    expect(pathOf(manifest.url)).toBe("/manifest.webmanifest");
  } finally {
    await persistent.close();
    rmSync(profile, { recursive: true, force: true });
  }

  const served = await page.request.get("/manifest.webmanifest");
  expect(served.status()).toBe(200);
  const parsed = (await served.json()) as {
    id: string;
    start_url: string;
    scope: string;
    display: string;
    icons: { src: string; sizes: string; purpose?: string; type: string }[];
  };
  expect(parsed).toMatchObject({ id: "/", start_url: "/", scope: "/", display: "standalone" });
  for (const size of ["192x192", "512x512"])
    expect(parsed.icons.some((icon) => icon.sizes === size && icon.type === "image/png")).toBe(true);
  expect(parsed.icons.some((icon) => icon.purpose === "maskable")).toBe(true);
  for (const icon of parsed.icons) expect((await page.request.get(icon.src)).status(), icon.src).toBe(200);

  // The worker is checked with the server on every visit, so a new version reaches everyone.
  const worker = await page.request.get("/sw.js");
  expect(worker.headers()["cache-control"]).toMatch(/no-cache|no-store/);
  expect(worker.headers()["content-type"]).toMatch(/javascript/);
  expect((await worker.text()).split("\n")[0]).toBe('importScripts("/sw-notifications.js");');
  expect(worker.headers()["content-security-policy"]).toContain("worker-src 'self'");

  // Light and dark pages tell the window frame their colour.
  await page.goto("/");
  const themeColours = await page.locator('meta[name="theme-color"]').evaluateAll((metas) => metas.map((m) => m.getAttribute("media")));
  expect(themeColours).toEqual(["(prefers-color-scheme: light)", "(prefers-color-scheme: dark)"]);
});

test("offline, a page opens at once on the offline shell, the open chat says it is offline, and all comes back with the network", async ({
  page,
  context,
}) => {
  const chatUrl = await startChat(page, PROMPT);
  await waitForTurnEnd(page);
  await waitForWorker(page);
  const answer = "You said: “Where is the retry logic?”";
  await expect(page.getByTestId("message-assistant").last()).toContainText(answer);

  await context.setOffline(true);
  const banner = page.getByTestId("offline-banner");
  await expect(banner).toContainText("Offline — showing what was loaded. A message sent now is marked “Not sent”");
  // What was loaded stays readable.
  await expect(page.getByTestId("message-assistant").last()).toContainText(answer);
  await shot(page, "installable-offline-banner");
  // The banner says what the composer does.
  await send(page, "hello");
  await expect(page.getByTestId("turn-error")).toContainText("Not sent", { timeout: 20_000 });

  const started = Date.now();
  await page.goto(chatUrl);
  await expect(page.getByTestId("offline-shell")).toContainText(OFFLINE_SHELL_TEXT);
  // From the cache, not after the worker's wait for the network.
  expect(Date.now() - started).toBeLessThan(3_000);
  // The shell is the same page for everyone: nothing of the chat is in it.
  await expect(page.getByTestId("message-assistant")).toHaveCount(0);
  await expect(page).toHaveURL(chatUrl);
  await shot(page, "installable-offline-shell");

  // Back online, the page that was asked for loads by itself.
  await context.setOffline(false);
  await expect(page.getByTestId("message-assistant").last()).toContainText(answer);
  await expect(page.getByTestId("offline-banner")).toHaveCount(0);
});

test("online but with no way to the server, the chat says it cannot reach it once reconnecting has gone on a while", async ({ page }) => {
  // The socket never reaches the server: WebSocket held open and silent, polling refused.
  await page.routeWebSocket(/\/socket\.io\//, () => undefined);
  await page.route(/\/socket\.io\//, (route) => route.abort());
  await page.goto("/");
  const banner = page.getByTestId("offline-banner");
  await expect(banner).toContainText("Cannot reach the server — showing what was loaded.", { timeout: 20_000 });
  await expect(banner).toHaveAttribute("data-reason", "unreachable");
});

test.describe("signing out", () => {
  let app: AppProcess;
  let dataDir: string;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    dataDir = mkdtempSync(path.join(tmpdir(), "delegate-installable-"));
    app = await startAppProcess({
      mongoUri: new URL(`installable_${Date.now()}`, process.env.E2E_MONGODB_URI).toString(),
      dataDir,
      env: { AUTH_MODE: "open", WORKSPACE_DIR: path.resolve("workspace") },
      quiet: true,
    });
  });
  test.afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("leaves nothing of a chat in Cache Storage, and the sign-out response clears the HTTP cache", async ({ browser }) => {
    test.setTimeout(120_000);
    const context = await browser.newContext({ baseURL: app.baseUrl });
    const page = await context.newPage();
    await page.goto("/signup");
    await page.getByTestId("sign-up-email").fill("grace@example.com");
    await page.getByTestId("sign-up-name").fill("Grace");
    await page.getByTestId("sign-up-password").fill("compilers all the way");
    await page.getByTestId("sign-up-submit").click();
    await expect(page.getByTestId("composer")).toBeVisible();
    await send(page, PROMPT);
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(page);
    await waitForWorker(page);
    const chatPath = pathOf(page.url());
    // The chat's HTML, rendered with its turns, passes through the worker.
    await page.goto(chatPath);
    await expect(page.getByTestId("message-assistant").last()).toBeVisible();
    const chatId = chatPath.split("/").at(-1)!;

    // The worker itself stored nothing of it: not the page, not the API's answers.
    expect(await page.evaluate(() => fetch("/api/auth/state").then((response) => response.status))).toBe(200);
    expectNothingOfTheChat(await cacheStorage(page), chatId);

    // What another script (or an older worker) may have stored for this person.
    await page.evaluate(async (chat) => {
      await (await caches.open("per-person")).put("/api/sessions", new Response("[]", { headers: { "content-type": "application/json" } }));
      const shell = (await caches.keys()).find((name) => name.startsWith("delegate-shell-"))!;
      await (
        await caches.open(shell)
      ).put(chat, new Response(`<div data-turn-id="t1">${chat}</div>`, { headers: { "content-type": "text/html" } }));
    }, chatPath);

    const before = await cacheStorage(page);
    // The shell is stored, so what follows is not true of an empty cache.
    expect(before.map((entry) => pathOf(entry.url))).toContain("/offline");
    expect(before.some((entry) => pathOf(entry.url).startsWith("/_next/static/"))).toBe(true);
    expect(before.some((entry) => pathOf(entry.url) === chatPath)).toBe(true);
    expect(before.some((entry) => entry.cache === "per-person")).toBe(true);

    await page.getByTestId("account-menu-button").click();
    const signOut = page.waitForResponse((response) => pathOf(response.url()) === "/api/auth/sign-out");
    await page.getByTestId("account-menu-sign-out").click();
    expect((await (await signOut).allHeaders())["clear-site-data"]).toBe('"cache"');
    await expect(page.getByTestId("sign-in-form")).toBeVisible();

    expectNothingOfTheChat(await cacheStorage(page), chatId);
    await context.close();
  });
});
