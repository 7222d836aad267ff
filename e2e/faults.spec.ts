import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import mongoose from "mongoose";
import { startAppProcess } from "./app-process";
import { startCuttableProxy } from "./cuttable-proxy";
import { lastAssistant, panelStates, send, shot, startChat, waitForTurnEnd } from "./fixtures";

const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";

test.describe("faults", () => {
  test("a connection dropped mid-stream for a second catches up and converges", async ({ browser }) => {
    // Through a proxy that really drops the TCP connections (setOffline keeps WebSockets open).
    const proxy = await startCuttableProxy(process.env.E2E_BASE_URL!);
    const context = await browser.newContext({ baseURL: proxy.url });
    const page = await context.newPage();
    await startChat(page, PARALLEL_PROMPT);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible();
    const cut = proxy.cut(1_500);
    // The drop happened: the page notices it lost the server, then finds it again.
    await expect(page.getByText("Reconnecting…")).toBeVisible({ timeout: 5_000 });
    await cut;
    await expect(page.getByText("Reconnecting…")).toBeHidden({ timeout: 15_000 });
    await waitForTurnEnd(page);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    const live = await panelStates(page);
    const liveText = await lastAssistant(page).innerText();
    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(live.length);
    expect(await panelStates(page)).toEqual(live);
    expect(await lastAssistant(page).innerText()).toBe(liveText);
    await context.close();
    await proxy.close();
  });

  test("a server killed mid-turn comes back: runs end as ghost_sweep, history intact", async ({ browser }) => {
    // Two starts of an app process: on a busy machine each can take most of a minute.
    test.setTimeout(240_000);
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
      // The writes trail the stream: the kill comes once a running run is stored (this test's
      // database holds this chat alone), else a busy machine could kill before there is one.
      const db = await mongoose.createConnection(mongoUri).asPromise();
      try {
        await expect
          .poll(() => db.collection("subagentruns").countDocuments({ status: "running" }), { timeout: 60_000 })
          .toBeGreaterThanOrEqual(1);
      } finally {
        await db.close();
      }

      await app.stop("SIGKILL");
      app = await startAppProcess({ mongoUri, dataDir, port: app.port, env: { DEMO_CHUNK_DELAY_MS: "120" } });
      await page.reload();

      await expect(page.getByTestId("message-user")).toHaveCount(2);
      await expect(page.getByTestId("message-assistant").first()).toHaveAttribute("data-status", "completed");
      await expect(lastAssistant(page)).toHaveAttribute("data-status", "failed");
      await expect(page.getByTestId("turn-error")).toContainText(/restarted/i);
      const panels = page.getByTestId("subagent-panel");
      await expect(panels.first()).toBeVisible();
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
