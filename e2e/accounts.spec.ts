import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { freePort, startAppProcess, type AppProcess } from "./app-process";
import { lastAssistant, send, shot, waitForTurnEnd } from "./fixtures";
import { lowContrast } from "./support/contrast";

/**
 * Accounts in a real browser against the real app: each part starts an app of
 * its own in an account mode (the global setup's app runs in single mode) on a database
 * of its own on the test database server.
 */
const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
const WRONG_SIGN_IN = "That email and password do not match an account.";

interface Instance {
  app: AppProcess;
  dataDir: string;
  mongoUri: string;
}

async function startInstance(
  name: string,
  mode: string,
  reuse?: { dataDir: string; mongoUri: string; port: number },
  env: Record<string, string> = {},
): Promise<Instance> {
  const dataDir = reuse?.dataDir ?? mkdtempSync(path.join(tmpdir(), `delegate-${name}-`));
  const mongoUri = reuse?.mongoUri ?? new URL(`${name}_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
  const app = await startAppProcess({
    mongoUri,
    dataDir,
    port: reuse?.port,
    env: { AUTH_MODE: mode, WORKSPACE_DIR: path.resolve("workspace"), ...env },
    quiet: true,
  });
  return { app, dataDir, mongoUri };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance) return;
  await instance.app.stop();
  rmSync(instance.dataDir, { recursive: true, force: true });
}

async function newPage(
  browser: Browser,
  baseURL: string,
  options: Parameters<Browser["newContext"]>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, ...options });
  return { context, page: await context.newPage() };
}

async function signUp(page: Page, account: { email: string; name: string; password: string }, url = "/signup"): Promise<void> {
  await page.goto(url);
  await page.getByTestId("sign-up-email").fill(account.email);
  await page.getByTestId("sign-up-name").fill(account.name);
  await page.getByTestId("sign-up-password").fill(account.password);
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("composer")).toBeVisible();
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByTestId("sign-in-email").fill(email);
  await page.getByTestId("sign-in-password").fill(password);
  await page.getByTestId("sign-in-submit").click();
}

async function openAccountMenu(page: Page): Promise<void> {
  await page.getByTestId("account-menu-button").click();
  await expect(page.getByTestId("account-menu")).toBeVisible();
}

test.describe("open sign-up", () => {
  // One instance and one account through the whole story: a failure stops the rest.
  test.describe.configure({ mode: "serial" });
  let instance: Instance;
  const ada = { email: "ada@example.com", name: "Ada", password: "tide tables at dawn" };

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    instance = await startInstance("accounts_open", "open");
  });
  test.afterAll(async () => stopInstance(instance));

  test("a person signs up, and a second browser signed in to the same account sees the same chats live", async ({ browser }) => {
    test.setTimeout(120_000);
    const first = await newPage(browser, instance.app.baseUrl);
    // A signed-out browser is sent to sign in, and may create an account from there.
    await first.page.goto("/");
    await expect(first.page).toHaveURL(/\/login\?next=%2F$/);
    await expect(first.page.getByTestId("sign-in-form")).toBeVisible();
    // A failed single sign-on comes back with a reason code, said in plain words; a crafted
    // reason is not repeated.
    await first.page.goto("/login?error=sso&reason=denied");
    await expect(first.page.getByTestId("form-error")).toHaveText("The sign-in was cancelled at the provider.");
    await first.page.goto("/login?error=sso&reason=Call%20us%20to%20unlock");
    await expect(first.page.getByTestId("form-error")).toHaveText("Single sign-on could not be completed. Start again from this page.");
    await first.page.goto("/login?next=%2F");
    await first.page.getByTestId("sign-up-link").click();
    await expect(first.page).toHaveURL(/\/signup/);
    // The length rule is said before anything is submitted; password managers get their hints.
    await expect(first.page.getByText(/At least 8 characters/)).toBeVisible();
    await expect(first.page.getByTestId("sign-up-password")).toHaveAttribute("autocomplete", "new-password");
    await expect(first.page.getByTestId("sign-up-email")).toHaveAttribute("autocomplete", "email");
    expect(await lowContrast(first.page), "sign-up").toEqual([]);
    await first.page.getByTestId("sign-up-email").fill(ada.email);
    await first.page.getByTestId("sign-up-name").fill(ada.name);
    await first.page.getByTestId("sign-up-password").fill("short");
    await first.page.getByTestId("sign-up-submit").click();
    await expect(first.page.getByTestId("form-error")).toHaveText("A password needs at least 8 characters.");
    await first.page.getByTestId("sign-up-password").fill(ada.password);
    await first.page.getByTestId("sign-up-submit").click();
    await expect(first.page.getByTestId("composer")).toBeVisible();
    await shot(first.page, "accounts-signed-up");

    // The first account is the admin: its menu offers Admin, and Escape closes the menu.
    await openAccountMenu(first.page);
    await expect(first.page.getByTestId("account-menu")).toContainText(ada.email);
    await expect(first.page.getByTestId("account-menu-admin")).toBeVisible();
    await expect(first.page.getByTestId("account-menu-account")).toBeFocused();
    await first.page.keyboard.press("ArrowDown");
    await expect(first.page.getByTestId("account-menu-admin")).toBeFocused();
    await first.page.keyboard.press("Escape");
    await expect(first.page.getByTestId("account-menu")).toHaveCount(0);
    await expect(first.page.getByTestId("account-menu-button")).toBeFocused();

    await send(first.page, "hello");
    await first.page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(first.page);
    const chatUrl = first.page.url();

    // The second browser: a wrong password gets the one answer that reveals nothing.
    const second = await newPage(browser, instance.app.baseUrl);
    await signIn(second.page, ada.email, "not the password");
    await expect(second.page.getByTestId("form-error")).toHaveText(WRONG_SIGN_IN);
    await signIn(second.page, "nobody@example.com", ada.password);
    await expect(second.page.getByTestId("form-error")).toHaveText(WRONG_SIGN_IN);
    await signIn(second.page, ada.email, ada.password);
    await expect(second.page.getByTestId("composer")).toBeVisible();
    await expect(second.page.getByTestId("session-item")).toHaveCount(1);
    await second.page.goto(new URL(chatUrl).pathname);
    await expect(second.page.getByTestId("message-assistant")).toHaveCount(1);

    // Live: what the first browser sends, the second sees while it streams.
    await send(first.page, PARALLEL_PROMPT);
    await expect(second.page.getByTestId("message-user").last()).toContainText(PARALLEL_PROMPT);
    await expect(second.page.getByTestId("subagent-panel").first()).toBeVisible();
    await waitForTurnEnd(first.page);
    await waitForTurnEnd(second.page);
    await expect(lastAssistant(second.page)).toHaveAttribute("data-status", "completed");
    await shot(second.page, "accounts-second-browser");

    // /account lists both browsers, this one marked.
    await second.page.goto("/account");
    await expect(second.page.getByTestId("account-email")).toHaveText(ada.email);
    await expect(second.page.getByTestId("browser-session")).toHaveCount(2);
    await expect(second.page.locator('[data-testid="browser-session"][data-current="true"]')).toContainText("This browser");
    await expect(second.page.locator('[data-testid="browser-session"][data-current="true"]')).toContainText(
      /Chrome \d+ on (Linux|Windows)/,
    );
    await first.context.close();
    await second.context.close();
  });

  test("changing the password keeps this browser and signs the others out; one browser can be signed out from the list", async ({
    browser,
  }) => {
    const here = await newPage(browser, instance.app.baseUrl);
    const there = await newPage(browser, instance.app.baseUrl);
    await signIn(there.page, ada.email, ada.password);
    await expect(there.page.getByTestId("composer")).toBeVisible();
    await signIn(here.page, ada.email, ada.password);
    await expect(here.page.getByTestId("composer")).toBeVisible();
    await here.page.goto("/account");
    await expect(here.page.getByText("Changing it signs out every other browser")).toBeVisible();
    await here.page.getByTestId("password-current").fill(ada.password);
    await here.page.getByTestId("password-next").fill("a new tide table");
    await here.page.getByTestId("password-submit").click();
    await expect(here.page.getByRole("status").filter({ hasText: "Password changed. Other browsers were signed out." })).toBeVisible();
    ada.password = "a new tide table";
    await expect(there.page.getByTestId("session-ended")).toBeVisible();
    // This browser stays signed in; the others are gone from its list.
    await here.page.reload();
    await expect(here.page.getByTestId("browser-session")).toHaveCount(1);

    await there.page.getByTestId("sign-in-again").click();
    await there.page.getByTestId("sign-in-email").fill(ada.email);
    await there.page.getByTestId("sign-in-password").fill(ada.password);
    await there.page.getByTestId("sign-in-submit").click();
    await expect(there.page.getByTestId("composer")).toBeVisible();
    await here.page.reload();
    await expect(here.page.getByTestId("browser-session")).toHaveCount(2);
    await here.page.locator('[data-testid="browser-session"][data-current="false"]').getByTestId("browser-revoke").click();
    await expect(here.page.getByTestId("browser-session")).toHaveCount(1);
    await expect(there.page.getByTestId("session-ended")).toBeVisible();
    await here.context.close();
    await there.context.close();
  });

  test("signing out everywhere cuts the other browser's connection, and its next action asks for sign-in", async ({ browser }) => {
    const here = await newPage(browser, instance.app.baseUrl);
    const there = await newPage(browser, instance.app.baseUrl);
    await signIn(here.page, ada.email, ada.password);
    await expect(here.page.getByTestId("composer")).toBeVisible();
    await signIn(there.page, ada.email, ada.password);
    await expect(there.page.getByTestId("composer")).toBeVisible();
    await there.page.getByTestId("session-item").first().getByRole("link").first().click();
    await expect(there.page.getByTestId("message-assistant").first()).toBeVisible();

    await here.page.goto("/account");
    await here.page.getByTestId("sign-out-everywhere").click();
    await expect(here.page).toHaveURL(/\/login/);

    // The other browser is told at once, instead of "Reconnecting…" forever.
    await expect(there.page.getByTestId("session-ended")).toBeVisible();
    await expect(there.page.getByTestId("session-ended")).toContainText("You were signed out");
    expect(await lowContrast(there.page), "the signed-out notice").toEqual([]);
    await shot(there.page, "accounts-signed-out-elsewhere");
    await send(there.page, "are you still there?");
    await expect(there.page.getByText("Not sent: You were signed out. Sign in again to go on.")).toBeVisible();
    const chatPath = new URL(there.page.url()).pathname;
    await there.page.getByTestId("sign-in-again").click();
    await expect(there.page).toHaveURL(new RegExp(`/login\\?next=${encodeURIComponent(chatPath)}$`));
    await there.page.getByTestId("sign-in-email").fill(ada.email);
    await there.page.getByTestId("sign-in-password").fill(ada.password);
    await there.page.getByTestId("sign-in-submit").click();
    await expect(there.page).toHaveURL(new RegExp(`${chatPath}$`));
    await expect(there.page.getByTestId("message-assistant").first()).toBeVisible();
    await here.context.close();
    await there.context.close();
  });

  test("the account pages read well at 375 px in dark mode", async ({ browser }) => {
    const phone = await newPage(browser, instance.app.baseUrl, {
      viewport: { width: 375, height: 812 },
      colorScheme: "dark",
      isMobile: true,
      hasTouch: true,
    });
    const { page } = phone;
    const noSideways = () =>
      page.evaluate(
        () =>
          document.documentElement.scrollWidth <= window.innerWidth &&
          [...document.querySelectorAll("main")].every((m) => m.scrollWidth <= m.clientWidth),
      );
    await page.goto("/login");
    await expect(page.getByTestId("sign-in-form")).toBeVisible();
    expect(await lowContrast(page), "sign-in").toEqual([]);
    expect(await noSideways()).toBe(true);
    await shot(page, "accounts-375-dark-sign-in");
    await signIn(page, ada.email, ada.password);
    await expect(page.getByTestId("composer")).toBeVisible();
    await openAccountMenu(page);
    expect(await lowContrast(page), "chat with the account menu").toEqual([]);
    await shot(page, "accounts-375-dark-menu");
    await page.getByTestId("account-menu-account").click();
    await expect(page.getByTestId("browser-session").first()).toBeVisible();
    expect(await lowContrast(page), "account").toEqual([]);
    expect(await noSideways()).toBe(true);
    await shot(page, "accounts-375-dark-account");
    await page.goto("/admin");
    await expect(page.getByTestId("admin-account").first()).toBeVisible();
    await page.getByTestId("invite-create").click();
    await expect(page.getByTestId("invite-url")).toBeVisible();
    await page.getByTestId("admin-account").first().getByTestId("admin-usage").waitFor();
    expect(await lowContrast(page), "admin").toEqual([]);
    expect(await noSideways()).toBe(true);
    await shot(page, "accounts-375-dark-admin");
    // Sign out from the menu, with the keyboard: the chat is behind the sign-in again.
    await page.goto("/");
    await page.getByTestId("account-menu-button").focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("End");
    await expect(page.getByTestId("account-menu-sign-out")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
    await phone.context.close();
  });
});

test.describe("chats from before accounts", () => {
  let instance: Instance | undefined;
  test.afterAll(async () => stopInstance(instance));

  test("a browser's chats from single mode are offered once to the account it signs into, and added only when asked", async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const port = await freePort();
    // Single mode first: this browser is a person through its cookie, and makes a chat.
    instance = await startInstance("accounts_claim", "single", {
      port,
      dataDir: mkdtempSync(path.join(tmpdir(), "delegate-claim-")),
      mongoUri: new URL(`accounts_claim_${Date.now()}`, process.env.E2E_MONGODB_URI).toString(),
    });
    const { context, page } = await newPage(browser, instance.app.baseUrl);
    await page.goto("/");
    await expect(page.getByTestId("account-menu-button")).toHaveCount(0);
    await send(page, "hello");
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(page);
    const chatPath = new URL(page.url()).pathname;
    // A second browser with a chat of its own, whose person will say "Not now".
    const other = await newPage(browser, instance.app.baseUrl);
    await other.page.goto("/");
    await send(other.page, "hello");
    await other.page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(other.page);

    // The same database and address, now with accounts.
    await instance.app.stop();
    instance = await startInstance("accounts_claim", "open", { port, dataDir: instance.dataDir, mongoUri: instance.mongoUri });
    await page.goto("/");
    await expect(page).toHaveURL(/\/login/);
    await signUp(page, { email: "grace@example.com", name: "Grace", password: "neap tide notebook" }, "/signup");
    // Nothing was merged silently: the account starts empty and the banner asks.
    await expect(page.getByTestId("claim-banner")).toContainText(
      "This browser has 1 chat from before you signed in. Add it to your account?",
    );
    await expect(page.getByText("No chats yet.")).toBeVisible();
    expect(await lowContrast(page), "the claim banner").toEqual([]);
    await shot(page, "accounts-claim-banner");
    await page.getByTestId("claim-accept").click();
    await expect(page.getByTestId("claim-done")).toContainText("1 chat was added to your account.");
    await expect(page.getByTestId("session-item")).toHaveCount(1);
    await page.goto(chatPath);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    // Asked once: not again after a reload.
    await page.reload();
    await expect(page.getByTestId("composer")).toBeVisible();
    await expect(page.getByTestId("message-assistant")).toHaveCount(1);
    await expect(page.getByTestId("claim-banner")).toHaveCount(0);

    // "Not now" moves nothing and is not asked again.
    await signUp(other.page, { email: "linus@example.com", name: "Linus", password: "slack water notes" });
    await expect(other.page.getByTestId("claim-banner")).toContainText("1 chat");
    await other.page.getByTestId("claim-decline").click();
    await expect(other.page.getByTestId("claim-banner")).toHaveCount(0);
    await other.page.reload();
    await expect(other.page.getByTestId("composer")).toBeVisible();
    await expect(other.page.getByText("No chats yet.")).toBeVisible();
    await expect(other.page.getByTestId("claim-banner")).toHaveCount(0);
    // Grace's chats stay Grace's: the declined chat did not reach her either.
    await page.goto("/");
    await expect(page.getByTestId("session-item")).toHaveCount(1);
    await other.context.close();
    await context.close();
  });
});

test.describe("invitations and the admin", () => {
  test.describe.configure({ mode: "serial" });
  let instance: Instance;
  const admin = { email: "root@example.com", name: "Rosalind", password: "spring tide ledger" };
  const member = { email: "member@example.com", name: "Mo", password: "ebb and flow 42" };
  let adminPage: { context: BrowserContext; page: Page };

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    // Each model step pauses 5 s, so the member's turn is still running once the admin has
    // opened /admin and disabled the account, however slow a busy machine makes those clicks.
    instance = await startInstance("accounts_invite", "invite", undefined, { DEMO_REPLY_DELAY_MS: "5000" });
  });
  test.afterAll(async () => {
    await adminPage?.context.close();
    await stopInstance(instance);
  });

  test("in invite mode the first person becomes admin, and an invitation link lets one more person in, once", async ({ browser }) => {
    test.setTimeout(90_000);
    adminPage = await newPage(browser, instance.app.baseUrl);
    const { page } = adminPage;
    await signUp(page, admin);
    await openAccountMenu(page);
    await page.getByTestId("account-menu-admin").click();
    await expect(page).toHaveURL(/\/admin$/);
    await page.getByTestId("invite-expiry").selectOption({ label: "1 day" });
    await page.getByTestId("invite-create").click();
    const inviteUrl = (await page.getByTestId("invite-url").innerText()).trim();
    expect(inviteUrl).toMatch(/\/signup\?invite=/);
    await expect(page.locator('[data-testid="invite"][data-status="active"]')).toHaveCount(1);
    await shot(page, "accounts-admin-invite");

    // Without an invitation, sign-up is closed now that an account exists.
    const stranger = await newPage(browser, instance.app.baseUrl);
    await stranger.page.goto("/signup");
    await expect(stranger.page.getByRole("heading", { name: "Sign-up is closed" })).toBeVisible();
    await stranger.page.goto("/login");
    await expect(stranger.page.getByTestId("sign-in-form")).toBeVisible();
    await expect(stranger.page.getByTestId("sign-up-link")).toHaveCount(0);
    // A member is not an admin: /admin is the ordinary not-found page.
    await signUp(stranger.page, member, new URL(inviteUrl).pathname + new URL(inviteUrl).search);
    await openAccountMenu(stranger.page);
    await expect(stranger.page.getByTestId("account-menu-admin")).toHaveCount(0);
    await stranger.page.goto("/admin");
    await expect(stranger.page.getByText("This page could not be found.")).toBeVisible();
    await expect(stranger.page.getByTestId("admin-accounts")).toHaveCount(0);

    // The link worked once.
    const late = await newPage(browser, instance.app.baseUrl);
    await late.page.goto(new URL(inviteUrl).pathname + new URL(inviteUrl).search);
    await late.page.getByTestId("sign-up-email").fill("late@example.com");
    await late.page.getByTestId("sign-up-password").fill("too late for the tide");
    await late.page.getByTestId("sign-up-submit").click();
    await expect(late.page.getByTestId("form-error")).toContainText("not valid");
    await expect(late.page.getByTestId("composer")).toHaveCount(0);
    await page.reload();
    await expect(page.locator('[data-testid="invite"][data-status="used"]')).toHaveCount(1);
    await expect(page.locator(`[data-testid="admin-account"][data-email="${member.email}"]`)).toBeVisible();
    await stranger.context.close();
    await late.context.close();
  });

  test("an admin disables an account mid-turn: its turn is cancelled, its connection cut, its sign-in refused", async ({ browser }) => {
    test.setTimeout(120_000);
    const { page } = adminPage;
    const mo = await newPage(browser, instance.app.baseUrl);
    await signIn(mo.page, member.email, member.password);
    await expect(mo.page.getByTestId("composer")).toBeVisible();
    await send(mo.page, PARALLEL_PROMPT);
    await mo.page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    const chatPath = new URL(mo.page.url()).pathname;
    await expect(mo.page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();

    await page.goto("/admin");
    const row = page.locator(`[data-testid="admin-account"][data-email="${member.email}"]`);
    await row.getByTestId("admin-toggle").click();
    await expect(row).toHaveAttribute("data-disabled", "true");

    await expect(mo.page.getByTestId("session-ended")).toBeVisible();
    await mo.page.reload();
    await expect(mo.page).toHaveURL(/\/login/);
    await signIn(mo.page, member.email, member.password);
    await expect(mo.page.getByTestId("form-error")).toHaveText(WRONG_SIGN_IN);

    // Enabled again, the chat shows the turn ended by the cancel, not a run still spinning.
    await row.getByTestId("admin-toggle").click();
    await expect(row).toHaveAttribute("data-disabled", "false");
    await signIn(mo.page, member.email, member.password);
    await expect(mo.page.getByTestId("composer")).toBeVisible();
    await mo.page.goto(chatPath);
    await expect(lastAssistant(mo.page)).toHaveAttribute("data-status", "cancelled");
    await expect(mo.page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(0);
    await mo.context.close();
  });

  test("an admin's reset link sets a new password, and delete asks first, naming the account and its chats", async ({ browser }) => {
    const { page } = adminPage;
    await page.goto("/admin");
    const row = page.locator(`[data-testid="admin-account"][data-email="${member.email}"]`);
    await expect(row.getByTestId("admin-usage")).toContainText("Chats1");
    await row.getByTestId("admin-reset-link").click();
    const resetUrl = (await row.getByTestId("admin-reset-url").locator("code").innerText()).trim();
    expect(resetUrl).toMatch(/\/reset\?token=/);

    const mo = await newPage(browser, instance.app.baseUrl);
    await mo.page.goto(new URL(resetUrl).pathname + new URL(resetUrl).search);
    await mo.page.getByTestId("reset-password").fill("a brand new tide");
    await mo.page.getByTestId("reset-submit").click();
    await expect(mo.page.getByRole("heading", { name: "Your password is set" })).toBeVisible();
    await mo.page.getByTestId("reset-continue").click();
    await expect(mo.page.getByTestId("composer")).toBeVisible();
    // The old password no longer works.
    const elsewhere = await newPage(browser, instance.app.baseUrl);
    await signIn(elsewhere.page, member.email, member.password);
    await expect(elsewhere.page.getByTestId("form-error")).toHaveText(WRONG_SIGN_IN);
    await elsewhere.context.close();

    // Delete: Escape keeps everything; the confirmation names the account and what goes.
    await row.getByTestId("admin-delete").click();
    const confirm = row.getByTestId("admin-delete-confirm");
    await expect(confirm).toContainText(`Delete ${member.name} (${member.email})?`);
    await expect(confirm).toContainText("1 chat");
    await shot(page, "accounts-admin-delete-confirm");
    await page.keyboard.press("Escape");
    await expect(confirm).toHaveCount(0);
    await row.getByTestId("admin-delete").click();
    await row.getByTestId("admin-delete-confirm-button").click();
    await expect(page.locator(`[data-testid="admin-account"][data-email="${member.email}"]`)).toHaveCount(0);
    // The admin's own row offers neither disable nor delete.
    const own = page.locator(`[data-testid="admin-account"][data-email="${admin.email}"]`);
    await expect(own.getByTestId("admin-delete")).toHaveCount(0);
    await expect(own.getByTestId("admin-toggle")).toHaveCount(0);
    await mo.context.close();
  });
});
