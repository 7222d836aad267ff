import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startAppProcess, type AppProcess } from "./app-process";
import { shot } from "./fixtures";

/** APP_PASSWORD in a real browser: the login page in front of everything, then logout. */
const PASSWORD = "low tide at six";
let app: AppProcess;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "delegate-login-"));
  const mongoUri = new URL(`login_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
  app = await startAppProcess({ mongoUri, dataDir, env: { APP_PASSWORD: PASSWORD } });
});
test.afterAll(async () => {
  await app?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a password-protected instance asks for the password, lets the right one in, and logs out", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app.baseUrl });
  const page = await context.newPage();
  // The Content-Security-Policy must not cost the app anything it does.
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.goto("/c/someSession");
  await expect(page).toHaveURL(/\/login\?next=%2Fc%2FsomeSession/);
  await expect(page.getByTestId("composer")).toHaveCount(0);

  await page.getByTestId("login-password").fill("high tide");
  await page.getByTestId("login-submit").click();
  await expect(page.getByRole("alert").filter({ hasText: /not right/ })).toBeVisible();
  await shot(page, "login-wrong-password");

  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  // Back where the person was going (a chat that does not exist, so: not found), logged in.
  await expect(page).toHaveURL(/\/c\/someSession$/);
  await page.goto("/");
  await page.getByTestId("composer").fill("hello");
  await page.getByTestId("composer").press("Enter");
  await expect(page.getByTestId("message-assistant").first()).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  await page.getByTestId("logout").click();
  await expect(page).toHaveURL(/\/login/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
  expect(refused).toEqual([]);
  await context.close();
});

test("after login a hostile ?next= stays on this site", async ({ browser }) => {
  const context = await browser.newContext({ baseURL: app.baseUrl });
  const page = await context.newPage();
  // The browser drops the tab: "/\t/evil.example" would be "//evil.example", another site.
  await page.goto("/login?next=/%09/evil.example");
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await expect(page).toHaveURL(`${app.baseUrl}/`);
  await context.close();
});

test("no other site can frame the app", async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  // The app did answer the frame's request (a frame that never loaded would pass the rest too).
  const answered = page.waitForResponse(`${app.baseUrl}/login`);
  await page.setContent(`<iframe src="${app.baseUrl}/login" width="400" height="300"></iframe>`);
  const response = await answered;
  expect(response.status()).toBe(200);
  expect(response.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
  const frame = page.frames()[1]!;
  await frame.waitForLoadState("load");
  // Refused: the browser's error page stands in the frame, not the app's.
  expect(frame.url()).toBe("chrome-error://chromewebdata/");
  await expect(frame.getByTestId("login-password")).toHaveCount(0);
  await context.close();
});
