import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test as base } from "@playwright/test";
import { startAppProcess, type AppProcess } from "../app-process";

/**
 * Tests on an app of their own whose demo model streams at a pace a person can watch (and
 * click Steer or Kill in): at the shared app's pace a run can end between two clicks, and
 * on a busy machine the clicks are what slows down.
 */
function appTestWith(env: Record<string, string>) {
  return base.extend<object, { slowApp: AppProcess }>({
    slowApp: [
      async ({}, use) => {
        const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-slow-"));
        const app = await startAppProcess({
          mongoUri: new URL(`slow_${Date.now()}`, process.env.E2E_MONGODB_URI).toString(),
          dataDir,
          env,
          quiet: true,
        });
        await use(app);
        await app.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
      { scope: "worker", timeout: 150_000 },
    ],
    baseURL: async ({ slowApp }, use) => use(slowApp.baseUrl),
  });
}

export const slowAppTest = appTestWith({ DEMO_CHUNK_DELAY_MS: "120" });

/**
 * Slower still: each model step waits 8 s before it answers, so a running subagent stays
 * running through the clicks of a kill however busy the machine is (beside two CPU hogs, a
 * run at the slow pace still ended before the third click).
 */
export const haltingAppTest = appTestWith({ DEMO_CHUNK_DELAY_MS: "120", DEMO_REPLY_DELAY_MS: "8000" });
