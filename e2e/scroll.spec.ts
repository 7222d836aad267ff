import { expect, test, type Page } from "@playwright/test";
import { send, shot, startChat, waitForTurnEnd } from "./fixtures";

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

/** One animation frame's view of the list: its distance from the bottom and its content's height. */
interface Sample {
  distance: number;
  height: number;
}

/**
 * The longest run of consecutive frames further than `px` from the bottom. A frame can
 * come between a DOM update and the scroll that follows it; a list that stopped following
 * stays behind frame after frame until the turn ends.
 */
function longestBehind(samples: Sample[], px = 40): number {
  let longest = 0;
  let run = 0;
  for (const { distance } of samples) {
    run = distance > px ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Frames behind that still count as following (the scroll lands a frame or a few after the growth). */
const FRAMES_BEHIND = 6;

/**
 * Samples the list in the page, once per animation frame, until the running turn ends and
 * the view is at rest.
 * Counted in the page's frames, so a busy machine gives fewer frames, not other results.
 */
async function sampleUntilTurnEnds(page: Page): Promise<Sample[]> {
  return page.evaluate(
    () =>
      new Promise<Sample[]>((resolve) => {
        const samples: Sample[] = [];
        const started = performance.now();
        const frame = () => {
          // Looked up each frame: the list can be rendered anew (the chat's URL changes as it starts).
          const el = document.querySelector('[data-testid="message-list"]');
          if (el) samples.push({ distance: el.scrollHeight - el.scrollTop - el.clientHeight, height: el.scrollHeight });
          const answers = document.querySelectorAll('[data-testid="message-assistant"]');
          const status = answers[answers.length - 1]?.getAttribute("data-status") ?? "";
          // After the end, on until the view is at rest (a smooth scroll may still be on its way).
          const ended = status !== "" && !/running|sending/.test(status);
          const atRest = samples.length >= 2 && samples.at(-1)!.distance === samples.at(-2)!.distance;
          if ((ended && atRest) || performance.now() - started > 45_000) resolve(samples);
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
  );
}

const growth = (samples: Sample[]) => samples.at(-1)!.height - samples[0]!.height;
const shown = (samples: Sample[]) => samples.map((s) => s.distance).join(",");

test("follows a nested stream to its end, and every new prompt comes into view", async ({ page }) => {
  // A short window: the deep dive's answer (its panels folded) fits in a 900-pixel one, where
  // there would be nothing to follow.
  await page.setViewportSize({ width: 1440, height: 480 });
  await startChat(page, DEEP_PROMPT);
  const samples = await sampleUntilTurnEnds(page);
  // The content outgrew the view while sampled (by about 190 pixels); the view kept up.
  expect(growth(samples)).toBeGreaterThan(100);
  expect(longestBehind(samples), shown(samples)).toBeLessThanOrEqual(FRAMES_BEHIND);
  expect(samples.at(-1)!.distance).toBeLessThanOrEqual(40);
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
  const jump = page.getByRole("button", { name: /jump to latest/i });
  await expect(jump).toBeVisible();
  // The wheel's smooth scroll has come to rest: the same place two frames running.
  await list.evaluate(
    (el) =>
      new Promise<void>((resolve) => {
        let last = -1;
        const frame = () => (el.scrollTop === last ? resolve() : ((last = el.scrollTop), requestAnimationFrame(frame)));
        requestAnimationFrame(frame);
      }),
  );
  const readingAt = await list.evaluate((el) => el.scrollTop);
  const heightAt = await list.evaluate((el) => el.scrollHeight);
  // The stream goes on below (the list grows by a few lines); the reader's place stays put.
  await expect.poll(() => list.evaluate((el) => el.scrollHeight), { timeout: 30_000 }).toBeGreaterThan(heightAt + 100);
  expect(await list.evaluate((el) => el.scrollTop)).toBeLessThanOrEqual(readingAt + 2);
  expect(readingAt).toBeGreaterThan(0);
  await expect(jump).toBeVisible();
  await shot(page, "scroll-reading-above-the-stream");

  // A prompt sent while reading above is brought into view.
  await jump.click();
  await expect(jump).toBeHidden();
  const samples = await sampleUntilTurnEnds(page);
  // Once the smooth scroll down has reached the end, it follows again.
  const arrived = samples.findIndex((s) => s.distance <= 40);
  expect(arrived, shown(samples)).toBeGreaterThanOrEqual(0);
  expect(longestBehind(samples.slice(arrived)), shown(samples)).toBeLessThanOrEqual(FRAMES_BEHIND);
  expect(samples.at(-1)!.distance).toBeLessThanOrEqual(40);
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
