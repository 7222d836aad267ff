import { expect, test, type Page } from "@playwright/test";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Following the stream: the list follows a streaming answer to its end until
 * the reader scrolls up; scrolling up is never undone by the stream; a new prompt is always
 * brought into view; "Jump to latest" never covers the end of the chat, and the page
 * itself never scrolls (only the list does).
 */
const DEEP_PROMPT = "Deep dive into the tide predictor and the datum conversion";
const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
/** Five panels and a line per subagent (answers are short syntheses now; the help adds height). */
const FIVE_PROMPT = "Compare the harmonics, constituents, datums, extremes and stations modules";

/** Pixels between the bottom of what the list shows and the bottom of its content. */
function distanceFromBottom(page: Page): Promise<number> {
  return page.getByTestId("message-list").evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
}

/**
 * The longest run of consecutive samples further than `px` from the bottom. A sample can
 * land between a DOM update and the frame that follows it (one frame of growth); a list
 * that stopped following stays behind sample after sample.
 */
function longestBehind(samples: number[], px = 40): number {
  let longest = 0;
  let run = 0;
  for (const d of samples) {
    run = d > px ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Samples the distance every animation frame until the running turn ends. */
async function sampleUntilTurnEnds(page: Page): Promise<number[]> {
  const samples: number[] = [];
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    samples.push(await distanceFromBottom(page));
    const status = await lastAssistant(page).getAttribute("data-status");
    if (status && !/running|sending/.test(status)) break;
    await page.waitForTimeout(50);
  }
  return samples;
}

test("follows a nested stream to its end, and every new prompt comes into view", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await startChat(page, DEEP_PROMPT);
  const samples = await sampleUntilTurnEnds(page);
  expect(samples.length).toBeGreaterThan(20);
  // The content grew by thousands of pixels; the view kept up (never behind two samples running).
  expect(longestBehind(samples), samples.join(",")).toBeLessThanOrEqual(1);
  await expect(page.getByTestId("turn-stats").last()).toBeInViewport();

  // Ten prompts in a row: each one is brought into view as it is sent.
  for (let i = 0; i < 4; i++) {
    await send(page, `hello number ${i}`);
    await expect(page.getByTestId("message-user").last()).toContainText(`hello number ${i}`);
    await expect(page.getByTestId("message-user").last()).toBeInViewport();
    await waitForTurnEnd(page);
    await expect(page.getByTestId("turn-stats").last()).toBeInViewport();
  }
});

test("scrolling up mid-stream is never undone; Jump to latest follows again and covers nothing", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  // A long answer first, so there is something above to scroll up to.
  await startChat(page, FIVE_PROMPT);
  await waitForTurnEnd(page);
  await send(page, "hello");
  await waitForTurnEnd(page);
  await send(page, DEEP_PROMPT);
  await expect(page.getByTestId("subagent-panel").first()).toBeVisible();
  const list = page.getByTestId("message-list");
  await list.hover();
  await page.mouse.wheel(0, -400);
  await page.waitForTimeout(300);
  const readingAt = await list.evaluate((el) => el.scrollTop);
  const heightAt = await list.evaluate((el) => el.scrollHeight);
  // The stream goes on below (the list grows by a few lines); the reader's place stays put.
  await expect.poll(() => list.evaluate((el) => el.scrollHeight), { timeout: 30_000 }).toBeGreaterThan(heightAt + 100);
  expect(await list.evaluate((el) => el.scrollTop)).toBeLessThanOrEqual(readingAt + 2);
  expect(readingAt).toBeGreaterThan(0);
  const jump = page.getByRole("button", { name: /jump to latest/i });
  await expect(jump).toBeVisible();
  await shot(page, "scroll-reading-above-the-stream");

  // A prompt sent while reading above is brought into view.
  await jump.click();
  await expect(jump).toBeHidden();
  const samples = await sampleUntilTurnEnds(page);
  // After the smooth scroll down (half a second), it follows again.
  expect(longestBehind(samples.slice(10)), samples.join(",")).toBeLessThanOrEqual(1);
  await expect(page.getByTestId("turn-stats").last()).toBeInViewport();

  await list.hover();
  await page.mouse.wheel(0, -600);
  await expect(jump).toBeVisible();
  await send(page, PARALLEL_PROMPT);
  await expect(page.getByTestId("message-user").last()).toBeInViewport();
  await waitForTurnEnd(page);

  // Scrolled to the end, the button is gone; a little above the end, it covers no text.
  await expect(page.getByTestId("turn-stats").last()).toBeVisible();
  await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await list.hover();
  await page.mouse.wheel(0, -120);
  await expect(jump).toBeVisible();
  const box = (await jump.boundingBox())!;
  const covered = await page.evaluate(({ x, y, width, height }) => {
    const hits = new Set<string>();
    for (let dx = 4; dx < width; dx += 8) {
      for (const dy of [2, height / 2, height - 2]) {
        for (const el of document.elementsFromPoint(x + dx, y + dy)) {
          if (el.closest("button")) continue;
          // Text of the chat under the button.
          const text = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== "");
          if (text) hits.add(el.textContent!.trim().slice(0, 40));
        }
      }
    }
    return [...hits];
  }, box);
  expect(covered).toEqual([]);
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 375, height: 812 },
]) {
  test(`the page itself never scrolls at ${viewport.width}×${viewport.height}, even when a panel is brought into view`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await startChat(page, PARALLEL_PROMPT);
    await waitForTurnEnd(page);
    await page.getByTestId("subagent-panel").first().scrollIntoViewIfNeeded();
    await page
      .getByTestId("subagent-panel")
      .first()
      .evaluate((el) => el.scrollIntoView({ block: "start" }));
    const page_ = await page.evaluate(() => ({
      overflow: document.documentElement.scrollHeight - window.innerHeight,
      scrolled: window.scrollY + document.documentElement.scrollTop + document.body.scrollTop,
    }));
    expect(page_).toEqual({ overflow: 0, scrolled: 0 });
  });
}
