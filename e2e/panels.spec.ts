import { expect, type Locator, type Page } from "@playwright/test";
import { shot, startChat, waitForTurnEnd } from "./fixtures";
import { slowAppTest } from "./support/slow-app";

/**
 * The subagent panel's header and states with the offline demo model: a live status and
 * counts while a run works, a one-line outcome once done; Steer and Kill on the header,
 * Kill's in-place confirm (also when the run ends first); a killed run reads as a neutral
 * "Stopped"; a steer stays in the panel's sequence after the run and a reload; "Returned
 * to parent" is rendered, without the cast boilerplate. Screenshots of each state, light
 * and dark, desktop and phone.
 */

const test = slowAppTest;

const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
const STEER = "Focus on the release date only";

const running = (page: Page) => page.locator('[data-testid="subagent-panel"][data-status="running"]').first();
const panelOf = (page: Page, runId: string) => page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`);
/** The panel's own header, not those of panels nested inside it. */
const header = (panel: Locator) => panel.locator(":scope > div").first();

const VIEWS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 375, height: 812 },
] as const;

/** One state in four screenshots: light and dark, 1440×900 and 375×812, `target` scrolled into view. */
async function shots(page: Page, name: string, target?: Locator): Promise<void> {
  const before = page.viewportSize();
  for (const view of VIEWS) {
    await page.setViewportSize({ width: view.width, height: view.height });
    // The sidebar slides out of a narrowed window: shoot once no transition runs.
    await transitionsDone(page);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate((dark) => document.documentElement.classList.toggle("dark", dark), scheme === "dark");
      if (target) await target.scrollIntoViewIfNeeded().catch(() => undefined);
      await shot(page, `panels-${name}-${view.name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.evaluate(() => document.documentElement.classList.remove("dark"));
  if (before) await page.setViewportSize(before);
}

/** Resolves once the next frame has begun whatever a change started, and no CSS transition is still running. */
async function transitionsDone(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== "running"));
}

/** Every distinct live status the panels' headers showed, recorded in the page as they change. */
async function recordStatuses(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { __statuses: Set<string> }).__statuses = seen;
    const read = () => document.querySelectorAll('[data-testid="subagent-activity"]').forEach((el) => seen.add(el.textContent ?? ""));
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

test.describe("subagent panel header", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("a collapsed panel shows its live step and counts while running, one clock for both timers, and a one-line outcome when done", async ({
    page,
  }) => {
    await startChat(page, PARALLEL_PROMPT);
    const live = running(page);
    await expect(live).toBeVisible();
    await recordStatuses(page);
    const runId = (await live.getAttribute("data-run-id"))!;
    const panel = panelOf(page, runId);
    await expect(panel.getByTestId("subagent-counts").first()).toHaveText(/^\d+ tools?/);
    await shots(page, "running-collapsed", panel);

    // Opened while it runs: the header's timer and the stats' runtime read one clock.
    await panel.getByTestId("subagent-toggle").first().click();
    const timers = async () =>
      panel.evaluate((el) => {
        const head = el.querySelector('[data-testid="subagent-elapsed"]')?.textContent ?? "";
        const stats = [...el.querySelectorAll("dt")].find((dt) => dt.textContent === "Runtime")?.nextElementSibling?.textContent ?? "";
        return { head, stats, running: el.getAttribute("data-status") === "running" };
      });
    let compared = 0;
    for (let i = 0; i < 4; i++) {
      const t = await timers();
      if (!t.running) break;
      expect(t.head).toBe(t.stats);
      compared++;
      // The next comparison at the clock's next tick (or once the run has ended).
      await expect
        .poll(async () => {
          const now = await timers();
          return !now.running || now.head !== t.head;
        })
        .toBe(true);
    }
    expect(compared).toBeGreaterThan(0);
    await panel.getByTestId("subagent-toggle").first().click();

    await waitForTurnEnd(page);
    const statuses = await page.evaluate(() => [...(window as unknown as { __statuses: Set<string> }).__statuses]);
    // It named what it was doing: a tool call with its arguments, or reading or writing.
    expect(
      statuses.some((s) => /^(list_files|grep|file_read)\b|^reading results…$|^writing…$/.test(s)),
      statuses.join(" | "),
    ).toBe(true);
    expect(statuses.every((s) => s.length <= 200)).toBe(true);

    for (const done of await page.getByTestId("subagent-panel").all()) {
      const outcome = header(done).getByTestId("subagent-outcome");
      await expect(outcome).toHaveText(/\S/);
      await expect(outcome).not.toContainText("**");
      await expect(header(done).getByTestId("subagent-counts")).toHaveText(/^\d+ tools?/);
    }
    await shots(page, "done-collapsed", panel);
  });

  test("steer from the header: the message shows in the panel where it was injected, after the run ends and after a reload", async ({
    page,
  }) => {
    await startChat(page, PARALLEL_PROMPT);
    const live = running(page);
    await expect(live).toBeVisible();
    const runId = (await live.getAttribute("data-run-id"))!;
    const panel = panelOf(page, runId);
    const steer = header(panel).getByTestId("steer");
    await expect(steer).toHaveAccessibleName(/^Steer /);
    await steer.click();
    const input = panel.getByTestId("steer-input");
    await expect(input).toBeFocused();
    await input.fill(STEER);
    await shot(page, "panels-steer-form-desktop-light");
    await input.press("Enter");
    await expect(panel.getByTestId("steer-input")).toHaveCount(0);
    await shots(page, "steer-sent", panel);

    await waitForTurnEnd(page);
    await expect(panel).toHaveAttribute("data-status", "success");
    await panel.getByTestId("subagent-toggle").first().click();
    const item = panel.getByTestId("subagent-steer");
    await expect(item).toHaveCount(1);
    await expect(item).toContainText("You steered");
    await expect(item.getByTestId("subagent-steer-text")).toHaveText(STEER);
    // In sequence: after the step before it, before the step that read it.
    const order = await panel.getByTestId("subagent-steps").evaluate((ol) => [...ol.children].map((li) => li.getAttribute("data-testid")));
    expect(order.indexOf("subagent-steer")).toBeGreaterThan(0);
    expect(order.slice(order.indexOf("subagent-steer") + 1)).toContain("subagent-step");
    await shots(page, "steer-in-sequence", item);

    await page.reload();
    const again = panelOf(page, runId);
    await expect(again.getByTestId("subagent-toggle").first()).toHaveAttribute("aria-expanded", "true");
    await expect(again.getByTestId("subagent-steer-text")).toHaveText(STEER);
  });

  test("kill from the header asks in place; a killed run reads as a neutral Stopped, not Failed, also after a reload", async ({ page }) => {
    await startChat(page, PARALLEL_PROMPT);
    const live = running(page);
    await expect(live).toBeVisible();
    const runId = (await live.getAttribute("data-run-id"))!;
    const panel = panelOf(page, runId);
    // From the keyboard: Kill opens the confirm with its button focused; Escape backs out.
    await header(panel).getByTestId("kill").focus();
    await page.keyboard.press("Enter");
    const confirm = panel.getByTestId("kill-confirm");
    await expect(confirm).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(confirm).toHaveCount(0);

    await header(panel).getByTestId("kill").click();
    await expect(confirm).toBeVisible();
    await confirm.click();

    const stopped = async (p: Locator) => {
      await expect(p).toHaveAttribute("data-outcome", "stopped");
      const head = header(p);
      await expect(head.getByRole("img", { name: "Stopped" })).toBeVisible();
      await expect(head.getByRole("img", { name: "Failed" })).toHaveCount(0);
      await expect(head.getByTestId("outcome-badge")).toHaveText("stopped");
      await expect(head.getByTestId("subagent-outcome")).toHaveText(/killed/i);
      await expect(p).toHaveAttribute("aria-label", /: stopped$/);
      // Neutral: the border is not the failure's red.
      const border = await p.evaluate((el) => getComputedStyle(el).borderTopColor);
      const failed = await p.evaluate((el) => {
        const probe = document.createElement("div");
        probe.className = "border border-red-200 dark:border-red-900/70";
        el.parentElement!.appendChild(probe);
        const colour = getComputedStyle(probe).borderTopColor;
        probe.remove();
        return colour;
      });
      expect(border).not.toBe(failed);
    };
    await stopped(panel);
    await panel.getByTestId("subagent-toggle").first().click();
    await expect(panel.getByTestId("run-ended")).toContainText("Stopped");
    await expect(panel.getByTestId("run-ended")).not.toHaveAttribute("role", "alert");
    await shots(page, "stopped", panel.getByTestId("run-ended"));

    await waitForTurnEnd(page);
    await page.reload();
    await stopped(panelOf(page, runId));
  });

  test("a kill confirm left open when the run ends says so in place and keeps the focus", async ({ page }) => {
    await startChat(page, PARALLEL_PROMPT);
    const live = running(page);
    await expect(live).toBeVisible();
    const runId = (await live.getAttribute("data-run-id"))!;
    const panel = panelOf(page, runId);
    await header(panel).getByTestId("kill").click();
    await expect(panel.getByTestId("kill-confirm")).toBeFocused();
    // The confirm over running panels (the run may end while these are taken: that is this test's point).
    await shots(page, "kill-confirm", panel);

    await waitForTurnEnd(page);
    const ended = panel.getByTestId("control-ended");
    await expect(ended).toHaveText(/finished before you confirmed: nothing to kill\./);
    await expect(panel.getByTestId("kill-confirm")).toHaveCount(0);
    const ok = panel.getByTestId("control-dismiss");
    await expect(ok).toBeFocused();
    await shots(page, "kill-confirm-run-ended", panel);
    await page.keyboard.press("Enter");
    await expect(panel.getByTestId("control-strip")).toHaveCount(0);
    await expect(panel.getByTestId("subagent-toggle").first()).toBeFocused();
  });

  test("Returned to parent is rendered, its boilerplate metadata, and not a repeat of the response above", async ({ page }) => {
    await startChat(page, "Investigate the release plan");
    await waitForTurnEnd(page);
    const panel = page.getByTestId("subagent-panel").first();
    await panel.getByTestId("subagent-toggle").first().click();
    const returned = panel.getByTestId("returned-to-parent").first();
    await expect(returned).toBeVisible();
    await expect(returned).not.toContainText("**");
    await expect(returned).not.toContainText("Condensation:");
    await expect(returned).not.toContainText("[Subagent Result");
    await expect(returned.locator("pre")).toHaveCount(0);
    await expect(returned.getByTestId("returned-meta")).toContainText("Completed");
    await expect(returned).toContainText("Returned as shown above.");
    await expect(panel.getByTestId("subagent-response")).toBeVisible();
    await shots(page, "returned-to-parent", returned);
  });
});
