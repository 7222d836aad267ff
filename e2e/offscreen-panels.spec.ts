import { expect, test, type Locator } from "@playwright/test";
import { shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Open panels that are scrolled out of view are not drawn (content-visibility: auto):
 * with five of them open, drawing them all on every frame of a stream was most of the
 * page's work. What a reader must not lose for it: the words stay in the page (find in
 * page, screen readers, copy), and a panel scrolled back into view is there in full at
 * once, at the size it had, so the reader's place does not jump.
 */

const FIVE = "Compare the harmonics, constituents, datums, extremes and stations modules";

/** Whether Chromium currently skips drawing `el`'s contents because it is off screen. */
const skipped = (el: Locator) => el.evaluate((node) => !node.checkVisibility({ contentVisibilityAuto: true }));
const nextFrames = (el: Locator) =>
  el.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

test.use({ viewport: { width: 375, height: 812 } });

test("an open panel scrolled out of view is not drawn, yet keeps its words and comes back in full without moving the reader", async ({
  page,
}) => {
  await startChat(page, FIVE);
  await waitForTurnEnd(page, 90_000);
  const toggles = page.getByTestId("subagent-toggle");
  await expect(toggles).toHaveCount(5);
  for (let i = 0; i < 5; i++) await toggles.nth(i).click();
  await expect(page.locator('[data-testid="subagent-toggle"][aria-expanded="true"]')).toHaveCount(5);

  const list = page.getByTestId("message-list");
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await nextFrames(list);
  const first = page.getByTestId("subagent-panel").first();
  const response = first.getByTestId("subagent-response");

  // Out of view: not drawn, and still all there for find in page and screen readers.
  expect(await skipped(response.locator(".markdown"))).toBe(true);
  const words = (await response.textContent())?.trim() ?? "";
  expect(words.length).toBeGreaterThan(40);
  await expect(page.getByText(words.slice(0, 30), { exact: false }).first()).toBeAttached();

  // Scrolled back to: drawn at once, every word readable, and it stays where the reader put it.
  await response.evaluate((el) => el.scrollIntoView({ block: "start" }));
  const top = await response.evaluate((el) => el.getBoundingClientRect().top);
  await nextFrames(list);
  expect(await skipped(response.locator(".markdown"))).toBe(false);
  expect(await response.evaluate((el) => el.getBoundingClientRect().top)).toBeCloseTo(top, 0);
  const visible = await response.innerText();
  expect(visible.replace(/\s+/g, "")).toBe(words.replace(/\s+/g, ""));
  await shot(page, "offscreen-panel-scrolled-back-phone");
});
