import { expect, test, type Page } from "@playwright/test";
import { contrast, renderedColours } from "./colour";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * The keyboard flow and contrast (issue 12): the message box has focus on load and after
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

/** Every visible element with text of its own, with its rendered contrast. */
async function lowContrast(page: Page): Promise<string[]> {
  const handles = await page.locator("body *:visible").elementHandles();
  const failures: string[] = [];
  for (const handle of handles) {
    const info = await handle.evaluate((node) => {
      const el = node as Element;
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("")
        .trim();
      const style = getComputedStyle(el);
      const disabled = (el as HTMLButtonElement).disabled === true || el.closest("[aria-disabled=true],:disabled") !== null;
      const box = el.getBoundingClientRect();
      // Screen-reader-only text (Next's route announcer too) is not seen.
      const hidden = el.closest(".sr-only,[aria-hidden=true],next-route-announcer") !== null || Number(style.opacity) === 0 || box.width <= 1 || box.height <= 1;
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      return { own, skip: disabled || hidden || own === "", large: size >= 24 || (bold && size >= 18.66) };
    });
    if (info.skip) continue;
    const colours = await renderedColours(handle);
    const ratio = contrast(colours.color, colours.background);
    if (ratio < (info.large ? 3 : 4.5)) failures.push(`${ratio.toFixed(2)}:1 "${info.own.slice(0, 40)}"`);
  }
  return failures;
}

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
