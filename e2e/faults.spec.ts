import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startAppProcess } from "./app-process";
import { lastAssistant, panelStates, send, shot, startChat, waitForTurnEnd } from "./fixtures";

const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";

test.describe("faults", () => {
  test("a connection dropped mid-stream for a second catches up and converges", async ({ page, context }) => {
    await startChat(page, PARALLEL_PROMPT);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();
    await context.setOffline(true);
    await page.waitForTimeout(1_000);
    await context.setOffline(false);
    await waitForTurnEnd(page);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    const live = await panelStates(page);
    const liveText = await lastAssistant(page).innerText();
    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(live.length);
    expect(await panelStates(page)).toEqual(live);
    expect(await lastAssistant(page).innerText()).toBe(liveText);
  });

  test("a server killed mid-turn comes back: runs end as ghost_sweep, history intact", async ({ browser }) => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-restart-"));
    const mongoUri = new URL(`restart_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
    let app = await startAppProcess({ mongoUri, dataDir, env: { DEMO_CHUNK_DELAY_MS: "120" } });
    const context = await browser.newContext({ baseURL: app.baseUrl });
    const page = await context.newPage();
    try {
      await startChat(page, "hello");
      await waitForTurnEnd(page);
      await send(page, PARALLEL_PROMPT);
      await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();

      await app.stop("SIGKILL");
      app = await startAppProcess({ mongoUri, dataDir, port: app.port, env: { DEMO_CHUNK_DELAY_MS: "120" } });
      await page.reload();

      await expect(page.getByTestId("message-user")).toHaveCount(2);
      await expect(page.getByTestId("message-assistant").first()).toHaveAttribute("data-status", "completed");
      await expect(lastAssistant(page)).toHaveAttribute("data-status", "failed");
      await expect(page.getByTestId("turn-error")).toContainText(/restarted/i);
      const panels = page.getByTestId("subagent-panel");
      expect(await panels.count()).toBeGreaterThanOrEqual(1);
      await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(0);
      await expect(panels.first()).toContainText(/ghost|restart/i);
      await shot(page, "after-restart");
    } finally {
      await context.close();
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
