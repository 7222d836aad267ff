import { expect, test, type Page } from "@playwright/test";
import { MASTER_PROMPT_MARKER } from "../lib/agent/prompts";
import { scriptedReply, type ScriptedRequest } from "../test/support/model/scripted-openai-server";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { shot } from "./fixtures";

/**
 * Branches in Chromium: a turn that ran three subagents is edited into a new version; the
 * navigator goes between the versions, each with its own panels, after a reload too; the
 * follow-up on the new branch sends the model nothing of the old one (read from the model
 * server's request log); regenerate, ↑-to-edit and fork each work from the page.
 */

type WireMessage = { role: string; content: string | null };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body?.messages ?? [];
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  if (!isMaster(r)) return scriptedReply({ text: [`OLD_BRANCH_FINDING for ${String(messages.at(-1)?.content).slice(0, 30)}`] });
  if (last.role === "tool") return scriptedReply({ text: ["Three helpers reported on plan A."] });
  const prompt = String(last.content);
  // Writes a first line, then waits (until the person stops it).
  if (prompt.startsWith("Slow"))
    return { type: "stream" as const, steps: [{ delta: { content: "The first part, " } }], end: "hang" as const };
  if (prompt.startsWith("Continue")) {
    const stopped = messages.some((m) => m.role === "assistant" && String(m.content).includes("The first part"));
    return scriptedReply({ text: [stopped ? "and the rest, after the stop." : "Nothing to continue."] });
  }
  if (prompt.startsWith("Plan A"))
    return scriptedReply({
      text: ["Asking three helpers. "],
      toolCalls: ["one", "two", "three"].map((n) => ({
        id: `m_${n}`,
        name: "subagent",
        argumentChunks: [JSON.stringify({ agent: "explore", task: `check part ${n} of plan A` })],
      })),
    });
  return scriptedReply({ text: [`Answer to: ${prompt}`] });
}

let app: HostileApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = await startHostileApp({ workspaceFiles: {}, handler });
});
test.afterAll(async () => {
  await app?.stop();
});

async function sendPrompt(page: Page, text: string): Promise<void> {
  await page.getByTestId("composer").fill(text);
  await page.getByTestId("send").click();
}

test("edit a prompt, go between its versions with their own panels, regenerate, ↑ to edit, fork", async ({ page }) => {
  await page.goto(app.baseUrl);
  await sendPrompt(page, "Plan A: three helpers");
  await expect(page.getByText("Three helpers reported on plan A.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("subagent-panel")).toHaveCount(3);

  // Edit the prompt: a second version of the turn, without the old one's panels.
  const prompt = page.getByTestId("message-user").first();
  await prompt.hover();
  await prompt.getByTestId("edit-prompt").click();
  const editor = page.getByTestId("edit-prompt-text");
  await expect(editor).toBeFocused();
  await editor.fill("Plan B: no helpers");
  await editor.press("Enter");
  await expect(page.getByText("Answer to: Plan B: no helpers")).toBeVisible();
  await expect(page.getByTestId("subagent-panel")).toHaveCount(0);
  await expect(prompt.getByTestId("branch-position")).toHaveText("2 / 2");

  // A follow-up on branch 2: nothing of branch 1 reaches the model.
  const before = app.model.requests.length;
  await sendPrompt(page, "More on B");
  await expect(page.getByText("Answer to: More on B")).toBeVisible();
  const followUp = app.model.requests.slice(before).filter(isMaster);
  expect(followUp).toHaveLength(1);
  const sent = JSON.stringify(messagesOf(followUp[0]!));
  expect(sent).toContain("Plan B: no helpers");
  for (const old of ["Plan A", "OLD_BRANCH_FINDING", "Three helpers reported", "check part"]) expect(sent).not.toContain(old);
  await shot(page, "branches-version-2");

  // Back to version 1: its three panels, whole, and after a reload too.
  await prompt.getByRole("button", { name: "Previous version" }).click();
  await expect(page.getByText("Three helpers reported on plan A.")).toBeVisible();
  await expect(page.getByTestId("subagent-panel")).toHaveCount(3);
  await expect(page.getByText("More on B")).toHaveCount(0);
  await expect(prompt.getByTestId("branch-position")).toHaveText("1 / 2");
  await page.reload();
  await expect(page.getByTestId("subagent-panel")).toHaveCount(3);
  await expect(page.getByTestId("message-user").first().getByTestId("branch-position")).toHaveText("1 / 2");

  // Regenerate the answer: a third version, the same prompt.
  const answer = page.getByTestId("message-assistant").first();
  await answer.getByTestId("regenerate").click();
  await expect(page.getByTestId("message-user").first().getByTestId("branch-position")).toHaveText("3 / 3");
  await expect(page.getByTestId("message-assistant").first()).toHaveAttribute("data-status", "completed");
  await expect(page.getByTestId("message-user").first()).toContainText("Plan A: three helpers");

  // ↑ in the empty box edits the last prompt; Escape leaves it as it was.
  await page.getByTestId("composer").focus();
  await page.keyboard.press("ArrowUp");
  await expect(page.getByTestId("edit-prompt-text")).toBeFocused();
  await expect(page.getByTestId("edit-prompt-text")).toHaveValue("Plan A: three helpers");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("edit-prompt-text")).toHaveCount(0);

  // Fork from the answer: a new chat with that turn.
  const chatUrl = page.url();
  await page.getByTestId("message-assistant").first().getByTestId("fork").click();
  await expect(page).not.toHaveURL(chatUrl);
  await expect(page.getByTestId("message-user")).toHaveCount(1);
  await expect(page.getByTestId("message-user")).toContainText("Plan A: three helpers");
  await expect(page.getByTestId("subagent-panel")).toHaveCount(3);
  await expect(page.getByTestId("branch-nav")).toHaveCount(0);
});

test("Continue after a stopped turn: the agent goes on from what it had said", async ({ page }) => {
  await page.goto(app.baseUrl);
  await sendPrompt(page, "Slow answer please");
  await expect(page.getByText("The first part,")).toBeVisible({ timeout: 30_000 });
  await page.getByTestId("stop").click();
  const cont = page.getByTestId("continue");
  await expect(cont).toBeVisible();
  await cont.click();
  await expect(page.getByText("and the rest, after the stop.")).toBeVisible();
  await expect(page.getByTestId("continue")).toHaveCount(0);
});
