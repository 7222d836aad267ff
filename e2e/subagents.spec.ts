import { expect, test } from "@playwright/test";
import { lastAssistant, panelStates, shot, startChat, waitForTurnEnd } from "./fixtures";
import { haltingAppTest } from "./support/slow-app";

/** The e2e server runs the offline demo model; every panel names it (lib/model/demo-model.ts). */
const DEMO_MODEL_LABEL = "Offline demo model";
const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
const DEEP_PROMPT = "Deep dive into the tide predictor and the datum conversion";

test.describe("subagent panels", () => {
  test("two parallel subagents: spinners, then checks; expanded tool calls survive a reload", async ({ page }) => {
    await startChat(page, PARALLEL_PROMPT);
    const panels = page.getByTestId("subagent-panel");
    await expect(panels).toHaveCount(2);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(2);
    await shot(page, "panels-running");

    await waitForTurnEnd(page);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="success"]')).toHaveCount(2);
    await shot(page, "panels-collapsed");

    const first = panels.first();
    await first.getByTestId("subagent-toggle").first().click();
    await expect(first.getByTestId("subagent-toggle").first()).toHaveAttribute("aria-expanded", "true");
    // Which model ran it: in the header and beside its cost.
    await expect(first.getByTestId("subagent-model").first()).toHaveText(DEMO_MODEL_LABEL);
    await expect(first.getByTestId("subagent-model-stat").first()).toContainText(`Model${DEMO_MODEL_LABEL}`);
    const calls = first.getByTestId("tool-call");
    expect(await calls.count()).toBeGreaterThanOrEqual(2);
    await expect(first).toContainText("list_files");
    await expect(first).toContainText("grep");
    for (const call of await calls.all()) await call.locator("button[aria-expanded]").first().click();
    // Parameters and results of the nested calls are on screen.
    await expect(first).toContainText(/"pattern"|"path"/);
    await expect(first).toContainText(/\.md|\.py|\.csv/);
    await shot(page, "panel-expanded");

    // A reload shows the same panels from MongoDB, still opened where the person opened them.
    const before = await panelStates(page);
    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(2);
    const reloaded = page.getByTestId("subagent-panel").first();
    await expect(reloaded.getByTestId("subagent-toggle").first()).toHaveAttribute("aria-expanded", "true");
    await expect(reloaded).toContainText(/"pattern"|"path"/);
    await expect(reloaded.getByTestId("subagent-model-stat").first()).toContainText(DEMO_MODEL_LABEL);
    expect(await panelStates(page)).toEqual(before);
  });

  test("a deep dive nests a grandchild inside its parent's panel", async ({ page }) => {
    await startChat(page, DEEP_PROMPT);
    await waitForTurnEnd(page);
    const outer = page.getByTestId("subagent-panel").first();
    await outer.getByTestId("subagent-toggle").first().click();
    const nested = outer.getByTestId("subagent-panel");
    await expect(nested.first()).toBeVisible();
    expect(await nested.count()).toBeGreaterThanOrEqual(1);
    await expect(nested.first()).toHaveAttribute("data-status", "success");
    await shot(page, "panel-nested");
  });

  test("a reload in the middle of a run keeps streaming to the end", async ({ page }) => {
    await startChat(page, PARALLEL_PROMPT);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(2);
    await waitForTurnEnd(page);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    await expect(page.locator('[data-testid="subagent-panel"][data-status="success"]')).toHaveCount(2);
    const live = await panelStates(page);
    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(2);
    expect(await panelStates(page)).toEqual(live);
  });

  // At the slow app's pace: at the shared app's, a run can end between the clicks that kill it.
  haltingAppTest("killing a running subagent shows X and 'killed'", async ({ page }) => {
    haltingAppTest.setTimeout(240_000);
    await startChat(page, PARALLEL_PROMPT);
    const running = page.locator('[data-testid="subagent-panel"][data-status="running"]').first();
    await expect(running).toBeVisible();
    const runId = await running.getAttribute("data-run-id");
    const panel = page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`);
    await panel.getByTestId("subagent-toggle").first().click();
    await panel.getByTestId("kill").first().click();
    await panel.getByTestId("kill-confirm").first().click();
    await expect(panel).toHaveAttribute("data-status", "error");
    await expect(panel).toContainText(/killed/i);
    await waitForTurnEnd(page, 180_000);
    await page.reload();
    const reloaded = page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`);
    await expect(reloaded).toHaveAttribute("data-status", "error");
    // The end reason shows on the collapsed panel, not only inside it.
    await expect(reloaded).toContainText(/killed/i);
  });

  test("another person cannot open the chat", async ({ page, browser }) => {
    const url = await startChat(page, "hello");
    await waitForTurnEnd(page);
    const stranger = await browser.newContext();
    const theirPage = await stranger.newPage();
    await theirPage.goto(url);
    await expect(theirPage.getByText(/does not exist|not found/i).first()).toBeVisible();
    await expect(theirPage.getByTestId("message-user")).toHaveCount(0);
    // The one HTTP route that names a session answers a stranger as if it did not exist.
    const api = await theirPage.request.get(`${url.replace("/c/", "/api/sessions/")}/tool-calls/call_1`);
    expect(api.status()).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: "not_found", message: "That chat does not exist." } });
    await stranger.close();
  });

  test("reads well on a phone and in dark mode", async ({ browser }) => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark", hasTouch: true, isMobile: true });
    const page = await phone.newPage();
    await startChat(page, PARALLEL_PROMPT);
    await waitForTurnEnd(page);
    const panel = page.getByTestId("subagent-panel").first();
    await panel.getByTestId("subagent-toggle").first().click();
    // Nothing overflows the 375 px screen sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, "mobile-dark-expanded");
    const url = page.url();
    const cookies = await phone.cookies();
    await phone.close();

    // The same chat on a desktop in dark mode.
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "dark" });
    await desktop.addCookies(cookies);
    const wide = await desktop.newPage();
    await wide.goto(url);
    await expect(wide.getByTestId("subagent-panel")).toHaveCount(2);
    await expect(wide.locator("html")).toHaveClass(/dark/);
    await shot(wide, "desktop-dark");
    await desktop.close();
  });
});
