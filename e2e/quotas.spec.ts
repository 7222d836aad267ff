import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { scriptedReply, type ScriptedResponse } from "../test/support/model/scripted-openai-server";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { lastAssistant, send, shot, startChat } from "./fixtures";

/**
 * An account's own quota in Chromium, against the real app in open mode and a scripted
 * OpenAI-compatible server that reports 600 tokens a reply: the admin gives a member a
 * daily quota of 100 tokens on the admin page (a bad figure is refused under its box),
 * and the member's next prompt is refused, saying which quota and when it resets.
 */
const handler = (): ScriptedResponse => scriptedReply({ text: ["Hello."], usage: { promptTokens: 500, completionTokens: 100 } });

const ADMIN = { email: "root@example.com", name: "Rosalind", password: "spring tide ledger" };
const MEMBER = { email: "member@example.com", name: "Mo", password: "autumn gale harbour" };

let app: HostileApp;
const contexts: BrowserContext[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  app = await startHostileApp({ workspaceFiles: { "notes.md": "notes\n" }, env: { AUTH_MODE: "open" }, handler });
});
test.afterAll(async () => {
  for (const context of contexts) await context.close();
  await app?.stop();
});

async function signUp(page: Page, account: { email: string; name: string; password: string }): Promise<void> {
  await page.goto("/signup");
  await page.getByTestId("sign-up-email").fill(account.email);
  await page.getByTestId("sign-up-name").fill(account.name);
  await page.getByTestId("sign-up-password").fill(account.password);
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("composer")).toBeVisible();
}

test("the admin sets a small daily quota for a member, whose next prompt is refused saying when it resets", async ({ browser }) => {
  const open = async () => {
    const context = await browser.newContext({ baseURL: app.baseUrl });
    contexts.push(context);
    return context.newPage();
  };
  const admin = await open();
  await signUp(admin, ADMIN);
  const member = await open();
  await signUp(member, MEMBER);

  await startChat(member, "Say hello");
  await expect(lastAssistant(member)).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  await admin.goto("/admin");
  const row = admin.locator(`[data-testid="admin-account"][data-email="${MEMBER.email}"]`);
  await expect(row.getByTestId("admin-quota")).toHaveAttribute("data-source", "default");
  await expect(row.getByTestId("quota-day")).toContainText("600 tokens, no limit");
  await row.getByTestId("admin-edit-quota").click();
  const form = row.getByTestId("quota-form");
  await form.getByTestId("quota-kind-custom").check();
  await form.getByTestId("quota-day-tokens").fill("a hundred");
  await form.getByTestId("quota-save").click();
  await expect(form.getByTestId("field-error")).toHaveText("Give a whole number of tokens, like 50000.");
  await expect(form.getByTestId("quota-day-tokens")).toHaveAttribute("aria-invalid", "true");
  await form.getByTestId("quota-day-tokens").fill("100");
  await form.getByTestId("quota-save").click();
  await expect(form).toHaveCount(0);
  await expect(row.getByTestId("admin-quota")).toHaveAttribute("data-source", "custom");
  await expect(row.getByTestId("quota-day")).toContainText("600 / 100 tokens");
  await shot(admin, "quotas-admin-set");

  await send(member, "Say hello again");
  await expect(
    member.getByText(/^Not sent: You have used your daily quota: 600 of 100 tokens; it resets at .+ UTC \(in .+\)\.$/),
  ).toBeVisible();
  await shot(member, "quotas-member-refused");

  await member.goto("/account");
  await expect(member.getByTestId("account-quota")).toContainText("600 / 100 tokens");
});
