import { expect, test } from "@playwright/test";
import { shot, startChat, waitForTurnEnd } from "./fixtures";

const PROMPT = "Deep dive into the tide predictor and the datum conversion";

test("the context inspector shows what the master and a depth-2 subagent were sent, call by call, after a reload too", async ({ page }) => {
  await startChat(page, PROMPT);
  await waitForTurnEnd(page);
  // The header's meter: the master's last request against its budget (CONTEXT_TOKENS, 100k by default).
  await expect(page.getByTestId("context-meter-figures")).toHaveText(/^[\d.]+k? \/ 100k$/);
  await page.reload();
  await expect(page.getByTestId("context-meter")).toContainText("/ 100k");

  // The master: its last request holds the general agent's clean result, marked as such.
  await page.getByTestId("turn-stats").last().getByTestId("inspect-context").click();
  const inspector = page.getByTestId("context-inspector");
  await expect(inspector).toBeVisible();
  await expect(inspector.getByTestId("inspector-call")).toHaveCount(2);
  await expect(inspector.getByTestId("inspector-call").last()).toHaveAttribute("aria-checked", "true");
  await expect(inspector.getByTestId("inspector-message").last()).toHaveAttribute("data-kind", "subagent_result");
  await inspector.getByTestId("inspector-message").last().locator("summary").click();
  await expect(inspector.getByTestId("inspector-message").last()).toContainText("[Subagent Result: general");
  await expect(inspector.getByTestId("inspector-kind").first()).toBeVisible();
  await shot(page, "inspector-master");
  // Escape closes it, and only it: the chat and its turn are untouched.
  await page.keyboard.press("Escape");
  await expect(inspector).toHaveCount(0);
  await expect(page.getByTestId("message-assistant").last()).toHaveAttribute("data-status", "completed");

  // A depth-2 subagent: its requests open with its system prompt and its task.
  const outer = page.getByTestId("subagent-panel").first();
  await outer.getByTestId("subagent-toggle").first().click();
  const inner = outer.getByTestId("subagent-panel").first();
  await inner.getByTestId("subagent-toggle").first().click();
  const ledger = inner.getByTestId("context-ledger");
  await expect(ledger).toContainText(/consumed [\d.]+k? tok → returned ~[\d.]+k? tok to its parent/);
  await ledger.getByTestId("inspect-context").click();
  await expect(inspector).toBeVisible();
  await expect(inspector).toContainText("explore:");
  // The run's requests load after the inspector opens: wait for them, then read them.
  const kinds = () => inspector.getByTestId("inspector-message").evaluateAll((items) => items.map((i) => i.getAttribute("data-kind")));
  await expect.poll(async () => (await kinds()).slice(0, 2)).toEqual(["system", "task"]);
  expect(await kinds()).toContain("tool_result");
  await inspector.getByTestId("inspector-call").first().click();
  await expect(inspector.getByTestId("inspector-detail")).toContainText("Offline demo model");
  await shot(page, "inspector-subagent");
  await inspector.getByRole("button", { name: "Close the context inspector" }).click();
  await expect(inspector).toHaveCount(0);
});

test("Show all keeps the focus in the inspector, and Escape still closes it", async ({ page }) => {
  // A prompt longer than the inspector shows before "Show all" (2,000 characters).
  await startChat(page, `${PROMPT}. ${"Check every tide table twice. ".repeat(80)}`);
  await waitForTurnEnd(page);
  await page.getByTestId("turn-stats").last().getByTestId("inspect-context").click();
  const inspector = page.getByTestId("context-inspector");
  await expect(inspector.getByTestId("inspector-message").first()).toBeVisible();
  // Every message open, so a long one's "Show all" is on screen.
  await inspector.locator("details").evaluateAll((items) => items.forEach((d) => ((d as HTMLDetailsElement).open = true)));
  const showAll = inspector.getByRole("button", { name: /^Show all [\d,]+ characters$/ });
  await expect(showAll.first()).toBeVisible();
  const clipped = await showAll.count();
  await showAll.first().click();
  await expect(showAll).toHaveCount(clipped - 1);
  // The focus is on the text it revealed, in the dialog, not dropped to the page's body.
  const focused = await page.evaluate(() => {
    const at = document.activeElement;
    return { tag: at?.tagName, inInspector: Boolean(at?.closest('[data-testid="context-inspector"]')) };
  });
  expect(focused).toEqual({ tag: "PRE", inInspector: true });
  await page.keyboard.press("Escape");
  await expect(inspector).toHaveCount(0);
  await expect(page.getByTestId("message-assistant").last()).toHaveAttribute("data-status", "completed");
});
