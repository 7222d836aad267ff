import { expect, test, type Locator, type Page } from "@playwright/test";
import { scriptedReply, type ScriptedHandler } from "../test/support/model/scripted-openai-server";
import { expand } from "../test/hostile/corpus";
import { lastAssistant, send, shot } from "./fixtures";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { hostileModel, promptFor, renderCorpus } from "./support/hostile-model";

/**
 * Model text that used to take a chat down for good: a list or blockquote nested 1,000
 * deep overflowed react-markdown's stack, Next replaced the chat with its error page, and
 * every reload rendered the same text again. Now such an answer (the master's or a
 * subagent's) shows as plain text, the chat reopens after a reload and goes on.
 */
const NESTED_NOTE = "Shown as plain text: too deeply nested to format.";
const NEXT_ERROR_PAGE = /This page couldn.t load/;
const vars = { attacker: "" };
let app: HostileApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = await startHostileApp({ handler: withSubagents(hostileModel(vars)), workspaceFiles: {} });
  vars.attacker = app.attackerUrl;
});
test.afterAll(async () => {
  await app?.stop();
});

/** `subagent <case id>`: the master delegates, and the subagent answers with that case's text. */
function withSubagents(cases: ScriptedHandler): ScriptedHandler {
  return (request, index) => {
    const messages: Array<{ role: string; content?: unknown }> = request.body?.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf("user");
    const id = /^subagent (\S+)$/.exec(String(messages[lastUser]?.content ?? "").trim())?.[1];
    if (!id) return cases(request, index);
    if (messages.slice(lastUser).some((m) => m.role === "tool")) return scriptedReply({ text: ["Delegated."] });
    const args = { agent: "general", task: promptFor(corpusCase(id)) };
    return scriptedReply({ toolCalls: [{ id: "call_subagent", name: "subagent", argumentChunks: [JSON.stringify(args)] }] });
  };
}

const corpusCase = (id: string) => renderCorpus.cases.find((c) => c.id === id)!;

/** A case's whole answer, as the scripted model streams it. */
function caseText(id: string): string {
  const text = expand(corpusCase(id).text, vars);
  return Array.isArray(text) ? text.join("") : String(text);
}

/** Sends a prompt (the first one starts the chat) and waits for its answer to complete. */
async function ask(page: Page, prompt: string): Promise<void> {
  const answers = page.getByTestId("message-assistant");
  const before = await answers.count();
  await send(page, prompt);
  if (before === 0) await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
  await expect(answers).toHaveCount(before + 1, { timeout: 30_000 });
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
}

/** Errors a broken render leaves behind: uncaught ones, and the markdown boundary's report. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" && /call stack|Markdown/.test(message.text())) errors.push(message.text());
  });
  return errors;
}

async function expectChatAlive(page: Page): Promise<void> {
  await expect(page.getByTestId("composer")).toBeVisible();
  await expect(page.getByTestId("message-list")).toBeVisible();
  await expect(page.getByText(NEXT_ERROR_PAGE)).toHaveCount(0);
}

/** The whole text, as written, with the note and no list or quote markup. */
async function expectPlainText(scope: Locator, text: string): Promise<void> {
  const plain = scope.getByTestId("markdown-plain");
  await expect(plain).toHaveCount(1);
  expect(await plain.evaluate((el) => el.textContent)).toBe(text);
  await expect(scope.getByTestId("markdown-plain-note")).toHaveText(NESTED_NOTE);
  await expect(plain.locator("xpath=..").locator("ul, ol, blockquote")).toHaveCount(0);
}

for (const id of ["deep-list", "deep-blockquote"]) {
  test(`a ${id} answer shows as plain text, and the chat reopens after a reload and goes on`, async ({ page }) => {
    test.setTimeout(120_000);
    const errors = watchErrors(page);
    const text = caseText(id);
    await page.goto(app.baseUrl);
    await ask(page, promptFor(corpusCase(id)));
    await expectPlainText(lastAssistant(page), text);
    await expectChatAlive(page);
    await shot(page, `markdown-${id}`);

    await page.reload();
    await expect(page.getByTestId("message-assistant")).toHaveCount(1);
    await expectPlainText(lastAssistant(page), text);
    await expectChatAlive(page);

    await ask(page, "are you still there?");
    await expect(lastAssistant(page)).toContainText("No such case.");
    await expect(page.getByTestId("message-assistant").first().getByTestId("markdown-plain")).toHaveCount(1);
    expect(errors).toEqual([]);
  });
}

test("a subagent's deep-list answer shows as plain text in its panel, live and after a reload", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const text = caseText("deep-list");
  const panel = page.getByTestId("subagent-panel");
  const toggle = panel.getByTestId("subagent-toggle").first();
  await page.goto(app.baseUrl);
  await ask(page, "subagent deep-list");
  await expect(panel).toHaveAttribute("data-status", "success");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expectPlainText(panel, text);
  await expectChatAlive(page);

  // The panel comes back open by itself once the page hydrates (a click here could race
  // hydration and fold it again).
  await page.reload();
  await expect(panel).toHaveCount(1);
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await expectPlainText(panel, text);
  await expectChatAlive(page);
  expect(errors).toEqual([]);
});

test("a lone surrogate renders, and reads the same after a reload", async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(app.baseUrl);
  await ask(page, promptFor(corpusCase("lone-surrogate")));
  const answer = lastAssistant(page).locator(".markdown");
  await expect(answer).toContainText("before");
  await expect(answer).toContainText("after");
  // Code points, not a string: a string could be re-encoded on its way out of the page.
  const visible = () => answer.evaluate((el) => Array.from((el as HTMLElement).innerText, (ch) => ch.codePointAt(0)));
  const live = await visible();

  await page.reload();
  await expect(answer).toContainText("after");
  expect(await visible()).toEqual(live);
  expect(errors).toEqual([]);
});
