import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { MASTER_PROMPT_MARKER } from "../lib/agent/prompts";
import { scriptedReply, type ScriptedRequest, type ScriptedResponse } from "../test/support/model/scripted-openai-server";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { lastAssistant, shot } from "./fixtures";

/**
 * Budgets in Chromium, against the real app and a scripted OpenAI-compatible server that
 * reports usage: a subagent on a 2,000-token budget reads "Out of budget" with its figure
 * (amber, not Failed) live and after a reload while its sibling answers, and a turn sent
 * with a token budget from the composer shows its spend in the header and stops at it.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body?.messages ?? [];
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const task = (r: ScriptedRequest) => String(messagesOf(r).find((m) => m.role === "user")?.content ?? "");
const step = (r: ScriptedRequest) => messagesOf(r).filter((m) => m.role === "assistant").length;
const spawn = (id: string, agent: string, text: string) => ({
  id,
  name: "subagent",
  argumentChunks: [JSON.stringify({ agent, task: text })],
});
const list = (id: string) => ({ id, name: "list_files", argumentChunks: ["{}"] });

/** A reply that takes a moment to start, so a person (and the test) sees the run while it runs. */
function slow(reply: ScriptedResponse): ScriptedResponse {
  return reply.type === "stream" ? { ...reply, steps: [{ delayMs: 400 }, ...reply.steps] } : reply;
}

function handler(r: ScriptedRequest): ScriptedResponse {
  const last = messagesOf(r).at(-1)!;
  if (isMaster(r)) {
    if (last.role === "tool")
      return scriptedReply({
        text: ["One helper answered; the other ran out of budget."],
        usage: { promptTokens: 50, completionTokens: 10 },
      });
    if (String(last.content).startsWith("Survey"))
      return scriptedReply({
        toolCalls: [spawn("m_a", "explore", "TASK_A"), spawn("m_b", "capped", "TASK_B")],
        usage: { promptTokens: 100, completionTokens: 0 },
      });
    // 300 here and 400 a response below: the loop's third response reaches 1,500.
    return scriptedReply({ toolCalls: [spawn("m_l", "explore", "TASK_LOOP")], usage: { promptTokens: 300, completionTokens: 0 } });
  }
  if (task(r).includes("TASK_A"))
    return step(r) === 0
      ? scriptedReply({ toolCalls: [list("a1")], usage: { promptTokens: 100, completionTokens: 0 } })
      : scriptedReply({ text: ["A found it."], usage: { promptTokens: 100, completionTokens: 0 } });
  // TASK_B (770 a response: 2,310 after the third) and TASK_LOOP (400 a response) never answer.
  const usage = task(r).includes("TASK_B") ? { promptTokens: 700, completionTokens: 70 } : { promptTokens: 400, completionTokens: 0 };
  return slow(scriptedReply({ text: [`Step ${step(r)}.`], toolCalls: [list(`l${step(r)}`)], usage }));
}

let app: HostileApp;
let dir: string;
/** One person's page for both tests: the second sends its turn in the first one's chat, where the composer has its budget field. */
let page: Page;

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  page = await browser.newPage();
  dir = mkdtempSync(path.join(tmpdir(), "delegate-budgets-e2e-"));
  const file = path.join(dir, "subagents.json");
  writeFileSync(
    file,
    JSON.stringify({
      subagents: [
        {
          name: "capped",
          description: "Read-only research on a budget.",
          systemPrompt: "You research the workspace on a small budget.",
          allowedTools: ["list_files", "grep", "file_read"],
          budget: { tokens: 2000 },
        },
      ],
    }),
  );
  app = await startHostileApp({ workspaceFiles: { "notes.md": "notes\n" }, env: { SUBAGENTS_FILE: file }, handler });
});

test.afterAll(async () => {
  await page?.close();
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a subagent out of budget reads Out of budget with its figure, live and after a reload, while its sibling answers", async () => {
  await page.goto(`${app.baseUrl}/`);
  await page.getByTestId("composer").fill("Survey the notes");
  await page.getByTestId("composer").press("Enter");
  await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);

  const capped = page.locator('[data-testid="subagent-panel"]', { hasText: "capped" });
  // While it runs, its spend against its budget.
  await expect(capped.getByTestId("subagent-budget")).toContainText("/ 2,000 tokens");
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  const check = async () => {
    await expect(capped).toHaveAttribute("data-outcome", "out_of_budget");
    await expect(capped.getByTestId("outcome-badge")).toHaveText("out of budget");
    await expect(capped.getByTestId("subagent-outcome")).toHaveText("Ran out of its budget: 2,310 of 2,000 tokens.");
    await expect(capped.getByTestId("subagent-budget")).toHaveText("2,310 / 2,000 tokens");
    await expect(capped.getByRole("img", { name: "Out of budget" })).toBeVisible();
    const explore = page.locator('[data-testid="subagent-panel"]', { hasText: "explore" });
    await expect(explore).toHaveAttribute("data-outcome", "succeeded");
    await expect(lastAssistant(page)).toContainText("One helper answered; the other ran out of budget.");
  };
  await check();
  await shot(page, "budgets-run-out-of-budget");
  await page.reload();
  await check();
});

test("a turn sent with a token budget shows its spend in the header and stops at it, saying so", async () => {
  await page.getByTestId("turn-budget-input").fill("1,500");
  await page.getByTestId("composer").fill("Read on and on");
  await page.getByTestId("composer").press("Enter");

  await expect(page.getByTestId("turn-budget-figures")).toContainText("/ 1,500 tokens");
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "failed", { timeout: 30_000 });
  const note = lastAssistant(page).getByTestId("turn-out-of-budget");
  await expect(note).toContainText("Out of budget");
  await expect(note).toContainText("The turn used 1,500 of 1,500 tokens and stopped before finishing its answer.");
  await expect(lastAssistant(page).getByTestId("turn-error")).toHaveCount(0);
  await expect(lastAssistant(page).getByTestId("subagent-panel")).toHaveAttribute("data-outcome", "out_of_budget");
  await expect(page.getByTestId("turn-budget")).toHaveCount(0);
  await shot(page, "budgets-turn-out-of-budget");
});

test("a budget set on the home page goes with the new chat's first turn, and the chat's field keeps it", async () => {
  await page.goto(`${app.baseUrl}/`);
  await page.getByTestId("turn-budget-input").fill("1.5k");
  await page.getByTestId("composer").fill("Read on and on");
  await page.getByTestId("composer").press("Enter");
  await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);

  await expect(page.getByTestId("turn-budget-input")).toHaveValue("1.5k");
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "failed", { timeout: 30_000 });
  await expect(lastAssistant(page).getByTestId("turn-out-of-budget")).toContainText(
    "The turn used 1,500 of 1,500 tokens and stopped before finishing its answer.",
  );
});

test("a budget the home page cannot read is refused before a chat is made", async () => {
  await page.goto(`${app.baseUrl}/`);
  await page.getByTestId("turn-budget-input").fill("lots");
  await expect(page.getByTestId("turn-budget-input")).toHaveAttribute("aria-invalid", "true");
  await page.getByTestId("composer").fill("Read on and on");
  await page.getByTestId("composer").press("Enter");
  await expect(page.getByTestId("command-error")).toContainText("Not sent: A budget is a number of tokens");
  await expect(page).toHaveURL(`${app.baseUrl}/`);
  // The prompt is still there to send once the budget is mended.
  await expect(page.getByTestId("composer")).toHaveValue("Read on and on");
});
