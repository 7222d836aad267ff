import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { lastAssistant, shot, startChat, waitForTurnEnd } from "./fixtures";
import { lowContrast } from "./support/contrast";

/** A master that hands the work to a general agent, which hands each part to an explore agent of its own (depth 2). */
const PROMPT = "Deep dive into the tide predictor and the datum conversion";

async function attach(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await shot(page, name);
  await testInfo.attach(name, { body: await page.screenshot(), contentType: "image/png" });
}

/** Every rendered row as a person reads it (its spoken label carries status, duration and tokens) and where its bar sits. */
async function rowsOf(timeline: Locator) {
  return timeline.getByTestId("timeline-row").evaluateAll((rows) =>
    rows.map((row) => ({
      kind: row.getAttribute("data-kind"),
      depth: row.getAttribute("data-depth"),
      status: row.getAttribute("data-status"),
      run: row.getAttribute("data-run-id"),
      call: row.getAttribute("data-call-id"),
      label: row.getAttribute("aria-label"),
      bar: row.querySelector<HTMLElement>("[data-testid=timeline-bar]")?.getAttribute("style") ?? null,
    })),
  );
}

test("the timeline grows while the turn runs, and reads the same after a reload", async ({ page }, testInfo) => {
  // A whole nested turn, a contrast check over the page and three screenshots: longer than
  // the default bound on a busy machine.
  test.setTimeout(150_000);
  await startChat(page, PROMPT);
  const turn = lastAssistant(page);
  await expect(turn).toHaveAttribute("data-status", "running");
  // The stream keeps moving the running turn's stats row: on a busy machine a click can land
  // where the toggle was a moment before. Click until the toggle says it opened (never twice
  // once it has, which would close it again).
  const toggle = turn.getByTestId("timeline-toggle");
  await expect(async () => {
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true", { timeout: 3_000 });
  }).toPass({ timeout: 20_000 });
  const timeline = turn.getByTestId("turn-timeline");
  await expect(timeline).toHaveAttribute("data-open", "true");

  // A subagent appears on the axis while it runs, and its open bar grows with the clock.
  const running = timeline.locator("[data-testid=timeline-row][data-kind=run][data-status=running]").first();
  await expect(running).toBeVisible();
  const step = timeline.locator("[data-testid=timeline-row][data-kind=step]").last();
  const before = await step.getAttribute("aria-label");
  await expect.poll(() => step.getAttribute("aria-label")).not.toBe(before);
  await attach(page, testInfo, "timeline-live");

  await waitForTurnEnd(page);
  await expect(timeline).not.toHaveAttribute("data-open");
  const finished = await rowsOf(timeline);
  // The master's steps, the general agent at depth 1, its two explore agents at depth 2, and their calls below them.
  expect(finished.filter((r) => r.kind === "step").length).toBeGreaterThanOrEqual(2);
  expect(finished.filter((r) => r.kind === "run").map((r) => r.depth)).toEqual(["1", "2", "2"]);
  expect(finished.filter((r) => r.kind === "call" && r.depth === "3").length).toBeGreaterThan(0);
  expect(finished.every((r) => r.status === "done" && r.bar !== null)).toBe(true);
  await expect(timeline.getByTestId("timeline-untimed")).toHaveCount(0);
  expect(await lowContrast(page), "the timeline in light mode").toEqual([]);
  await attach(page, testInfo, "timeline-finished");

  await page.reload();
  const reloaded = lastAssistant(page).getByTestId("turn-timeline");
  // The timeline stays open across the reload (as panels do) and is drawn from the stored times.
  await expect(reloaded).toBeVisible();
  expect(await rowsOf(reloaded)).toEqual(finished);
  await attach(page, testInfo, "timeline-after-reload");
});

test("a bar opens the panels above it and scrolls to its subagent or its tool call; rows are keyboard reachable", async ({
  page,
}, testInfo) => {
  await startChat(page, PROMPT);
  await waitForTurnEnd(page);
  const turn = lastAssistant(page);
  await turn.getByTestId("turn-stats").getByTestId("timeline-toggle").click();
  const timeline = turn.getByTestId("turn-timeline");
  await expect(timeline).toBeVisible();

  // A depth-2 run: its parent's panel and its own open, and it is brought into view, focused.
  const deep = timeline.locator("[data-testid=timeline-row][data-kind=run][data-depth='2']").first();
  const runId = (await deep.getAttribute("data-run-id"))!;
  const panel = page.locator(`[data-testid=subagent-panel][data-run-id="${runId}"]`);
  // Clicked until its panel is there: the list is still settling after the timeline opened,
  // and on a busy machine a click can land where the row was a frame before. Opening is
  // idempotent, so a second click changes nothing once the first has landed.
  await expect(async () => {
    await deep.click();
    await expect(panel).toBeAttached({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(panel).toBeInViewport();
  await expect(panel.getByTestId("subagent-toggle").first()).toHaveAttribute("aria-expanded", "true");
  await expect(panel.getByTestId("subagent-toggle").first()).toBeFocused();
  await expect(page.locator("[data-testid=subagent-panel][data-depth='1'] [data-testid=subagent-toggle]").first()).toHaveAttribute(
    "aria-expanded",
    "true",
  );
  await attach(page, testInfo, "timeline-opened-run");

  // A call of that run: its chip opens in place, in view.
  await timeline.scrollIntoViewIfNeeded();
  const callRow = timeline.locator(`[data-testid=timeline-row][data-kind=call][data-run-id="${runId}"]`).first();
  const callId = (await callRow.getAttribute("data-call-id"))!;
  const chip = panel.locator(`[data-testid=tool-call][data-call-id="${callId}"]`).first();
  await expect(async () => {
    await callRow.click();
    await expect(chip.locator("button").first()).toHaveAttribute("aria-expanded", "true", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(chip).toBeInViewport();
  await expect(chip.locator("button").first()).toHaveAttribute("aria-expanded", "true");
  await attach(page, testInfo, "timeline-opened-call");

  // Keyboard: one tab stop for the rows; the arrows move between them, Enter opens one.
  await timeline.scrollIntoViewIfNeeded();
  const rows = timeline.getByTestId("timeline-row");
  await expect(timeline.locator("[data-testid=timeline-row][tabindex='0']")).toHaveCount(1);
  await timeline.locator("[data-testid=timeline-row][tabindex='0']").focus();
  await page.keyboard.press("Home");
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(rows.nth(1)).toBeFocused();
  await expect(rows.nth(1)).toHaveAttribute("data-kind", "run");
  await page.keyboard.press("Enter");
  await expect(
    page
      .locator(`[data-testid=subagent-panel][data-run-id="${await rows.nth(1).getAttribute("data-run-id")}"] [data-testid=subagent-toggle]`)
      .first(),
  ).toBeFocused();
});

test("on a phone in dark mode the timeline scrolls sideways inside itself, not the page", async ({ browser, baseURL }, testInfo) => {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: 375, height: 812 },
    colorScheme: "dark",
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  try {
    await startChat(page, "Investigate the open bugs and the release plan");
    await waitForTurnEnd(page);
    const turn = lastAssistant(page);
    await turn.getByTestId("turn-stats").getByTestId("timeline-toggle").click();
    const scroller = turn.getByTestId("timeline-scroller");
    await expect(scroller).toBeVisible();
    await scroller.scrollIntoViewIfNeeded();
    const widths = await scroller.evaluate((el) => ({
      inner: el.scrollWidth,
      box: el.clientWidth,
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(widths.inner).toBeGreaterThan(widths.box);
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    expect(await lowContrast(page), "the timeline in dark mode").toEqual([]);
    await attach(page, testInfo, "timeline-375-dark");
  } finally {
    await context.close();
  }
});
