import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import type { ChatTurn } from "../lib/contracts";
import { generateHistory, insertHistory } from "../bench/seed-session";
import { browserOwnerId, withModels } from "./support/app-database";

/**
 * A long chat opens at its end at once with its newest turns only (a paged join), and
 * every older turn arrives as the reader scrolls up (or presses "Load earlier turns"),
 * page by page from the server, without losing their place. The history is written
 * straight into the app's database.
 */
const TURNS = 75;
/** Turns the join (and each older page) holds. */
const PAGE = 30;
/** Turns the list renders at first, and reveals at a time from what it holds. */
const RENDERED = 12;

/** A chat of TURNS stored turns owned by this browser's person. */
async function longChat(page: Page, context: BrowserContext, label: string): Promise<{ sessionId: string; history: ChatTurn[] }> {
  const ownerId = await browserOwnerId(page, context);
  const sessionId = `${label}${Date.now()}`;
  const history = generateHistory({ sessionId, turns: TURNS, subagents: 10, nestedToolCalls: 3 });
  await withModels(async (models) => {
    await models.Session.create({ _id: sessionId, ownerId, title: "A long chat" });
    await insertHistory(models, history);
  });
  return { sessionId, history };
}

const turnIds = (page: Page) =>
  page.locator('[data-testid="message-assistant"]').evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.turnId));

test("a long history opens at its end and loads every older turn as the reader scrolls up, keeping their place", async ({
  page,
  context,
}) => {
  const { sessionId, history } = await longChat(page, context, "long");
  await page.goto(`/c/${sessionId}`);
  const users = page.getByTestId("message-user");
  await expect(users).toHaveCount(RENDERED);
  await expect(page.getByTestId("load-earlier")).toHaveText(`Show ${PAGE - RENDERED} earlier turns`);
  // It opens at the end: the newest answer is on screen.
  await expect(page.getByTestId("message-assistant").last()).toBeInViewport();

  // Each scroll to the top brings earlier turns (revealed from memory, or a page loaded
  // from the server once those run out), and the turn being read stays in view.
  const list = page.getByTestId("message-list");
  let loadedFromServer = false;
  for (let i = 0; i < 20 && (await users.count()) < TURNS; i++) {
    const before = await users.count();
    const reading = await users.first().innerText();
    if (before % PAGE === 0) loadedFromServer = true;
    await list.evaluate((el) => el.scrollTo(0, 0));
    await expect.poll(() => users.count()).toBeGreaterThan(before);
    await expect(users.filter({ hasText: reading }).first()).toBeInViewport();
    if (i === 2) await page.screenshot({ path: "test-results/screenshots/long-history-older-page.png" });
  }
  expect(loadedFromServer).toBe(true);
  await expect(users).toHaveCount(TURNS);
  await expect(page.getByTestId("earlier-turns")).toHaveCount(0);
  // Every turn once, in order.
  expect(await turnIds(page)).toEqual(history.map((t) => t.turnId));
});

test("keyboard: Load earlier turns is a button at the top that keeps focus page after page", async ({ page, context }) => {
  const { sessionId, history } = await longChat(page, context, "keys");
  await page.goto(`/c/${sessionId}`);
  const users = page.getByTestId("message-user");
  await expect(users).toHaveCount(RENDERED);
  const button = page.getByTestId("load-earlier");
  await button.focus();
  // A press while a page loads is ignored (the button is aria-disabled then): each press is
  // made once no page is loading, and waits until it changed the list or the button and
  // the page it may have asked for has come (the last one takes the button away).
  const state = () =>
    page.evaluate(() => {
      const more = document.querySelector('[data-testid="load-earlier"]');
      return {
        shown: `${document.querySelectorAll('[data-testid="message-user"]').length} ${more?.textContent ?? "(none)"}`,
        loading: more?.getAttribute("aria-disabled") === "true",
      };
    });
  for (let i = 0; i < 20 && (await users.count()) < TURNS; i++) {
    await expect(button).toBeFocused();
    await expect(button).not.toHaveAttribute("aria-disabled", "true");
    const before = (await state()).shown;
    await page.keyboard.press("Enter");
    await expect.poll(async () => ((s) => !s.loading && s.shown !== before)(await state())).toBe(true);
  }
  await expect(users).toHaveCount(TURNS);
  expect(await turnIds(page)).toEqual(history.map((t) => t.turnId));
});

test("a page that fails to load says why, and Try again loads it", async ({ page, context }) => {
  const { sessionId, history } = await longChat(page, context, "fail");
  await page.goto(`/c/${sessionId}`);
  const users = page.getByTestId("message-user");
  await expect(users).toHaveCount(RENDERED);

  // A turn of the next page is stored broken (its steps not a list): reading that page fails on the server.
  const broken = history[TURNS - PAGE - 1]!.turnId;
  const steps = await withModels(async (models) => {
    const row = await models.Turn.findById(broken).lean<{ steps: unknown }>();
    await models.Turn.collection.updateOne({ _id: broken as never }, { $set: { steps: "not a list of steps" } });
    return row!.steps;
  });
  // Scrolled up past the turns the join brought, the next page is asked for, and refused.
  await expect(async () => {
    await page.getByTestId("message-list").evaluate((el) => el.scrollTo(0, 0));
    await expect(page.getByTestId("earlier-turns-error")).toContainText("Could not load earlier turns", { timeout: 500 });
  }).toPass();
  const retry = page.getByTestId("load-earlier");
  await expect(retry).toHaveText("Try again");
  await expect(users).toHaveCount(PAGE);
  await page.screenshot({ path: "test-results/screenshots/long-history-load-failed.png" });

  await withModels((models) => models.Turn.collection.updateOne({ _id: broken as never }, { $set: { steps } }));
  await retry.click();
  await expect.poll(() => users.count()).toBeGreaterThan(PAGE);
  await expect(page.getByTestId("earlier-turns-error")).toHaveCount(0);
});

/** A long chat whose newest turn with a subagent retried the run of the first turn with one, many pages back. */
async function lineageChat(page: Page, context: BrowserContext, label: string) {
  const { sessionId, history } = await longChat(page, context, label);
  const runOf = (turn: ChatTurn) => turn.steps.flatMap((s) => s.toolCalls).find((c) => c.subagent)?.subagent;
  const newer = history.findLast((t) => runOf(t))!;
  const older = history.find((t) => runOf(t))!;
  expect(history.indexOf(older)).toBeLessThan(TURNS - 2 * PAGE);
  expect(history.indexOf(newer)).toBeGreaterThanOrEqual(TURNS - RENDERED);
  const oldRunId = runOf(older)!.runId;
  const newRunId = runOf(newer)!.runId;
  await withModels((models) => models.SubagentRun.updateOne({ _id: newRunId }, { $set: { retryOf: oldRunId } }));
  return { sessionId, oldRunId, newRunId };
}

/** The old run's panel is on screen with the focus on its header, and links back to its retry. */
async function expectPanelShown(page: Page, oldRunId: string, newRunId: string) {
  const target = page.locator(`#run-${oldRunId}`);
  await expect(target).toBeInViewport();
  await expect(target.getByTestId("subagent-toggle")).toBeFocused();
  await expect(target.getByTestId("retried-as").locator(`[data-run-link="${newRunId}"]`)).toBeVisible();
}

test("a Retry of link to a run in a turn not loaded yet loads the pages before it and shows that panel", async ({ page, context }) => {
  const { sessionId, oldRunId, newRunId } = await lineageChat(page, context, "lineage");
  await page.goto(`/c/${sessionId}`);
  await expect(page.getByTestId("message-user")).toHaveCount(RENDERED);
  await expect(page.locator(`#run-${oldRunId}`)).toHaveCount(0);
  // From the keyboard: a mouse click on a link thousands of pixels up the list needs a
  // scroll by script first, which the list (following its end) may take back.
  await page.locator(`#run-${newRunId}`).getByTestId("retry-of").getByRole("link").focus();
  await page.keyboard.press("Enter");
  await expectPanelShown(page, oldRunId, newRunId);
});

test("the same link clicked before the page is interactive, or opened from the address bar, gets there too", async ({ page, context }) => {
  const { sessionId, oldRunId, newRunId } = await lineageChat(page, context, "early");
  // The app's scripts held back: the click is the browser's own, a hash change on the HTML.
  const scripts = /\/_next\/static\/chunks\/.*\.js(\?|$)/;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  await page.route(scripts, async (route) => {
    held++;
    await released;
    await route.continue();
  });
  await page.goto(`/c/${sessionId}`, { waitUntil: "commit" });
  await page.locator(`#run-${newRunId}`).getByTestId("retry-of").getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`#run-${oldRunId}$`));
  expect(held).toBeGreaterThan(0);
  await expect(page.locator(`#run-${oldRunId}`)).toHaveCount(0);
  release();
  await expectPanelShown(page, oldRunId, newRunId);
  await page.unroute(scripts);

  // A link to the panel pasted into the address bar.
  const pasted = await context.newPage();
  await pasted.goto(`/c/${sessionId}#run-${oldRunId}`);
  await expectPanelShown(pasted, oldRunId, newRunId);
  await pasted.close();
});
