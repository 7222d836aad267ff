import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { panelStates, shot, startChat, waitForTurnEnd } from "./fixtures";

const PROMPT = "Deep dive into the tide predictor and the datum conversion";

/** Without run ids and times: what a person sees in each panel, collapsed and expanded. */
async function panelsSeen(page: import("@playwright/test").Page): Promise<{ status: string | null; text: string }[]> {
  return (await panelStates(page)).map(({ status, text }) => ({ status, text: text.replace(/\b[0-9a-f]{8}\b/g, "<id>") }));
}

test("export a chat as a session file and as Markdown, import it as a new chat that shows the same panels", async ({ page }) => {
  await startChat(page, PROMPT);
  await waitForTurnEnd(page);
  const answer = await page.getByTestId("message-assistant").last().innerText();
  const outer = page.getByTestId("subagent-panel").first();
  await outer.getByTestId("subagent-toggle").first().click();
  await expect(outer.getByTestId("subagent-panel").first()).toBeVisible();
  const original = await panelsSeen(page);

  // The export menu, by keyboard: its first item has focus, Escape closes it.
  await page.getByTestId("export-button").click();
  await expect(page.getByRole("menuitem").first()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem").nth(1)).toBeFocused();
  await shot(page, "export-menu");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("menu")).toHaveCount(0);
  await expect(page.getByTestId("export-button")).toBeFocused();

  await page.getByTestId("export-button").click();
  const [json] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-format-json").click()]);
  expect(json.suggestedFilename()).toMatch(/\.delegate\.json$/);
  const file = await json.path();
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { format: string; turns: unknown[] };
  expect(parsed).toMatchObject({ format: "delegate.session" });
  expect(parsed.turns).toHaveLength(1);

  await page.getByTestId("export-button").click();
  const [md] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-format-markdown").click()]);
  const markdown = readFileSync(await md.path(), "utf8");
  expect(markdown).toContain(`> ${PROMPT}`);
  expect(markdown).toMatch(/<details><summary>🤖 /);

  // Import: a new chat opens with the same panels, expanded as the person opens them.
  const before = page.url();
  await page.getByTestId("import-file").setInputFiles(file);
  await page.waitForURL((url) => url.toString() !== before && /\/c\/[A-Za-z0-9_-]+$/.test(url.pathname));
  await expect.poll(() => page.getByTestId("message-assistant").last().innerText()).toBe(answer);
  const copy = page.getByTestId("subagent-panel").first();
  await copy.getByTestId("subagent-toggle").first().click();
  await expect(copy.getByTestId("subagent-panel").first()).toBeVisible();
  expect(await panelsSeen(page)).toEqual(original);
  await shot(page, "imported-chat");

  // A file that is not a session file: a clear message, and no chat is made.
  const chats = await page.getByTestId("session-item").count();
  await page
    .getByTestId("import-file")
    .setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from('{"hello": "world"}') });
  await expect(page.getByRole("alert").filter({ hasText: "not a valid Delegate session file" })).toBeVisible();
  await expect(page.getByTestId("session-item")).toHaveCount(chats);
});
