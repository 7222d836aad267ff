import { expect, test, type Page } from "@playwright/test";
import { lowContrast } from "./support/contrast";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * The keyboard flow and contrast: the message box has focus on load and after
 * the first send, a skip link reaches it from the top, Escape stops a running turn, and
 * every piece of text meets WCAG AA contrast on the colours actually rendered.
 */
const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";

async function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName ?? null);
}

test("the message box has focus on load, after the first send, and one skip link away", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("composer")).toBeFocused();

  // From the top of the page (focus placed before everything, as arriving from the
  // address bar does): Tab reaches the skip link first, Enter lands in the box.
  await page.evaluate(() => {
    const start = document.createElement("span");
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.remove();
  });
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to message box" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("composer")).toBeFocused();

  // The first send from the home page moves to the new chat with the focus still in the box.
  await page.keyboard.type("hello");
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/c\//);
  await waitForTurnEnd(page);
  expect(await focusedTestId(page)).toBe("composer");
  await page.keyboard.type("typed straight away");
  await expect(page.getByTestId("composer")).toHaveValue("typed straight away");
});

test("Escape stops a running turn", async ({ page }) => {
  await startChat(page, PARALLEL_PROMPT);
  await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();
  await page.keyboard.press("Escape");
  await waitForTurnEnd(page);
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "cancelled");
});

for (const scheme of ["light", "dark"] as const) {
  test(`every text meets AA contrast in ${scheme} mode`, async ({ browser }) => {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await page.goto("/");
    expect(await lowContrast(page), "home page").toEqual([]);
    await startChat(page, PARALLEL_PROMPT);
    await waitForTurnEnd(page);
    await page.getByTestId("subagent-panel").first().getByRole("button").first().click();
    expect(await lowContrast(page), "a chat with a panel open").toEqual([]);
    await shot(page, `contrast-${scheme}`);
    await send(page, "hello");
    await waitForTurnEnd(page);
    await context.close();
  });
}
