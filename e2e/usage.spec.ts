import { expect, test, type Page } from "@playwright/test";
import { MASTER_PROMPT_MARKER } from "../lib/agent/prompts";
import { formatCost, formatTokens } from "../lib/format/display";
import { scriptedReply, type ScriptedRequest, type ScriptedResponse } from "../test/support/model/scripted-openai-server";
import { lowContrast } from "./support/contrast";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { lastAssistant, shot } from "./fixtures";

/**
 * The usage page in Chromium, against the real app and a scripted OpenAI-compatible model
 * that reports usage at known prices: one turn in which the master hands work to a
 * subagent, then the page shows the turn's figures (as the chat shows them), split between
 * the master and the subagent, as a chart, a table and a text alternative.
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
