import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { startAppProcess, type AppProcess } from "./app-process";
import { MASTER_PROMPT_MARKER } from "../lib/agent/prompts";
import { formatCost, formatTokens } from "../lib/format/display";
import { scriptedReply, type ScriptedRequest, type ScriptedResponse } from "../test/support/model/scripted-openai-server";
import { lowContrast } from "./support/contrast";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { lastAssistant, send, shot, waitForTurnEnd } from "./fixtures";

/**
 * The usage page in Chromium, against the real app and a scripted OpenAI-compatible model
 * that reports usage at known prices: one turn in which the master hands work to a
 * subagent, then the page shows the turn's figures (as the chat shows them), split between
 * the master and the subagent, as a chart, a table and a text alternative. Then, with
 * accounts on, an admin sees everyone's per person, and a member only their own.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body?.messages ?? [];
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

/** Master: 100 + 10, then 50 + 5 tokens; the subagent: 200 + 20. */
const MASTER_TOKENS = 165;
const SUBAGENT_TOKENS = 220;
/** $3 in and $15 out per million tokens. */
const MASTER_COST = (150 * 3 + 15 * 15) / 1e6;
const SUBAGENT_COST = (200 * 3 + 20 * 15) / 1e6;

function handler(r: ScriptedRequest): ScriptedResponse {
  const last = messagesOf(r).at(-1)!;
  if (!isMaster(r)) return scriptedReply({ text: ["Two notes, both fine."], usage: { promptTokens: 200, completionTokens: 20 } });
  if (last.role === "tool") return scriptedReply({ text: ["The notes are fine."], usage: { promptTokens: 50, completionTokens: 5 } });
  return scriptedReply({
    toolCalls: [{ id: "m_1", name: "subagent", argumentChunks: [JSON.stringify({ agent: "explore", task: "Read the notes" })] }],
    usage: { promptTokens: 100, completionTokens: 10 },
  });
}

let app: HostileApp;
let page: Page;

test.describe.configure({ mode: "serial" });

test.describe("one person's usage", () => {
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    page = await browser.newPage();
    app = await startHostileApp({
      workspaceFiles: { "notes.md": "notes\n" },
      env: { MODEL_PRICE_INPUT: "3", MODEL_PRICE_OUTPUT: "15" },
      handler,
    });
  });

  test.afterAll(async () => {
    await page?.close();
    await app?.stop();
  });

  const row = (table: string, key: string) => page.getByTestId(table).locator(`[data-testid="usage-row"][data-key="${key}"]`);

  test("after a turn, the usage page shows the turn's figures, per agent, as a chart and a table", async () => {
    await page.goto(`${app.baseUrl}/`);
    await page.getByTestId("composer").fill("Check the notes");
    await page.getByTestId("composer").press("Enter");
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

    // What the chat shows for the turn.
    const total = MASTER_TOKENS + SUBAGENT_TOKENS;
    const cost = MASTER_COST + SUBAGENT_COST;
    const stats = lastAssistant(page).getByTestId("turn-stats");
    await expect(stats).toContainText(`${formatTokens(total)} tokens`);
    await expect(stats).toContainText(formatCost(cost));

    await page.getByTestId("sidebar-usage").click();
    await page.waitForURL(/\/usage$/);
    await expect(page.getByRole("heading", { name: "Usage" })).toBeVisible();

    // The totals are the turn's, in full.
    await expect(page.getByTestId("usage-total-tokens")).toHaveText(total.toLocaleString("en-US"));
    await expect(page.getByTestId("usage-total-cost")).toHaveText(formatCost(cost));
    await expect(page.getByTestId("usage-total-turns")).toHaveText("1");
    await expect(page.getByTestId("usage-total-runs")).toHaveText("1");
    await expect(page.getByTestId("usage-total-budget-stops")).toHaveText("0");

    // The chart: 30 days, today's bar holding the turn; its text alternative says so in words.
    const today = new Date().toISOString().slice(0, 10);
    const chart = page.getByRole("img", { name: /Tokens per day/ });
    await expect(chart).toBeVisible();
    await expect(page.getByTestId("usage-bar")).toHaveCount(30);
    await expect(page.locator(`[data-testid="usage-bar"][data-day="${today}"]`)).toHaveAttribute("data-value", String(total));
    await expect(page.getByTestId("usage-chart-description")).toHaveText(
      new RegExp(`^${total.toLocaleString("en-US")} tokens over 30 days, on 1 of them\\.`),
    );
    await expect(row("usage-days", today).locator('[data-figure="tokens"]')).toHaveText(total.toLocaleString("en-US"));

    // Cost instead of tokens.
    await page.getByTestId("usage-metric-cost").click();
    await expect(page.getByTestId("usage-metric-cost")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByRole("img", { name: /Cost per day/ })).toBeVisible();
    const bar = page.locator(`[data-testid="usage-bar"][data-day="${today}"]`);
    expect(Number(await bar.getAttribute("data-value"))).toBeCloseTo(cost, 9);

    // Each agent its own spend, adding up to the turn.
    await expect(row("usage-definitions", "master").locator('[data-figure="tokens"]')).toHaveText(String(MASTER_TOKENS));
    await expect(row("usage-definitions", "master").locator('[data-figure="turns"]')).toHaveText("1");
    await expect(row("usage-definitions", "operator:explore").locator('[data-figure="tokens"]')).toHaveText(String(SUBAGENT_TOKENS));
    await expect(row("usage-definitions", "operator:explore").locator('[data-figure="cost"]')).toHaveText(formatCost(SUBAGENT_COST));
    // One model ran both agents: its label names its endpoint ("scripted via 127.0.0.1:…").
    const models = page.getByTestId("usage-models").getByTestId("usage-row");
    await expect(models).toHaveCount(1);
    await expect(models).toHaveAttribute("data-key", /^scripted via /);
    await expect(models.locator('[data-figure="tokens"]')).toHaveText(total.toLocaleString("en-US"));
    await shot(page, "usage-page");
  });

  test("the page reads at a phone's width, in dark mode", async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.reload();
    await expect(page.getByTestId("usage-chart")).toBeVisible();
    // Nothing pushes the page wider than the screen (a wide table scrolls inside its own box).
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await lowContrast(page)).toEqual([]);
    await shot(page, "usage-page-phone-dark");
  });
});

test.describe("an admin's view", () => {
  let accountsApp: AppProcess;
  let dataDir: string;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    dataDir = mkdtempSync(path.join(tmpdir(), "delegate-usage-admin-"));
    const mongoUri = new URL(`usage_admin_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
    accountsApp = await startAppProcess({
      mongoUri,
      dataDir,
      env: { AUTH_MODE: "open", WORKSPACE_DIR: path.resolve("workspace") },
      quiet: true,
    });
  });
  test.afterAll(async () => {
    await accountsApp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Signs up in a browser of its own and runs one turn on the demo model; the chat's token figure. */
  async function personWithATurn(browser: Browser, email: string): Promise<{ page: Page; chatTokens: string }> {
    const context = await browser.newContext({ baseURL: accountsApp.baseUrl });
    const page = await context.newPage();
    await page.goto("/signup");
    await page.getByTestId("sign-up-email").fill(email);
    await page.getByTestId("sign-up-name").fill(email.split("@")[0]!);
    await page.getByTestId("sign-up-password").fill("tide tables at dawn");
    await page.getByTestId("sign-up-submit").click();
    await expect(page.getByTestId("composer")).toBeVisible();
    await send(page, "Hello there");
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(page);
    const stats = (await lastAssistant(page).getByTestId("turn-stats").textContent()) ?? "";
    return { page, chatTokens: /([\d.]+k?) tokens/.exec(stats)![1]! };
  }

  test("an admin sees everyone's usage per person and picks one; a member sees only their own", async ({ browser }) => {
    const ada = await personWithATurn(browser, "ada@example.com");
    const bob = await personWithATurn(browser, "bob@example.com");

    // The first account is the admin; the account menu leads to Usage.
    await ada.page.getByTestId("account-menu-button").click();
    await ada.page.getByTestId("account-menu-usage").click();
    await ada.page.waitForURL(/\/usage$/);
    const people = ada.page.getByTestId("usage-people").getByTestId("usage-row");
    await expect(people).toHaveCount(2);
    const bobRow = people.filter({ hasText: "bob@example.com" });
    const bobTokens = Number((await bobRow.locator('[data-figure="tokens"]').textContent())!.replaceAll(",", ""));
    // What Bob's chat showed for his one turn.
    expect(formatTokens(bobTokens)).toBe(bob.chatTokens);
    await expect(bobRow.locator('[data-figure="turns"]')).toHaveText("1");
    await expect(ada.page.getByTestId("usage-total-turns")).toHaveText("2");

    // One person: Bob's figures alone, no per-person table.
    await ada.page.getByTestId("usage-person").selectOption({ label: "bob (bob@example.com)" });
    await expect(ada.page.getByTestId("usage-total-turns")).toHaveText("1");
    await expect(ada.page.getByTestId("usage-total-tokens")).toHaveText(bobTokens.toLocaleString("en-US"));
    await expect(ada.page.getByTestId("usage-people")).toHaveCount(0);
    await shot(ada.page, "usage-admin-one-person");

    // Bob sees his own, may not pick anyone, and is refused Ada's.
    await bob.page.goto("/usage");
    await expect(bob.page.getByTestId("usage-total-tokens")).toHaveText(bobTokens.toLocaleString("en-US"));
    await expect(bob.page.getByTestId("usage-person")).toHaveCount(0);
    await expect(bob.page.getByTestId("usage-people")).toHaveCount(0);
    const adaId = await ada.page.evaluate(
      async () => ((await (await fetch("/api/auth/state")).json()) as { account: { id: string } }).account.id,
    );
    expect((await bob.page.request.get(`/api/usage?person=${adaId}`)).status()).toBe(404);
    await ada.page.context().close();
    await bob.page.context().close();
  });
});
