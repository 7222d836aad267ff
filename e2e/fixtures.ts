import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";

/** Screenshots a person can look at, kept as test artifacts. */
export const SHOTS_DIR = path.resolve("test-results/screenshots");

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS_DIR, `${name}.png`), fullPage: false });
}

/** Opens the start page (of the shared app, or of a spec's own at `baseUrl`) and sends the first prompt, landing in the new chat. */
export async function startChat(page: Page, prompt: string, baseUrl = ""): Promise<string> {
  await page.goto(`${baseUrl}/`);
  await send(page, prompt);
  await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
  return page.url();
}

export async function send(page: Page, prompt: string): Promise<void> {
  const composer = page.getByTestId("composer");
  await composer.fill(prompt);
  await untilHydrated(page);
  await composer.press("Enter");
}

/**
 * Until React has taken over the server's HTML of the box: text typed before is kept, but
 * an Enter pressed before goes nowhere (on a busy machine that can be a second or more).
 */
export async function untilHydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const box = document.querySelector('[data-testid="composer"]');
    return box !== null && Object.keys(box).some((key) => key.startsWith("__reactProps"));
  });
}

export function lastAssistant(page: Page): Locator {
  return page.getByTestId("message-assistant").last();
}

export async function waitForTurnEnd(page: Page, timeout = 45_000): Promise<void> {
  await expect(lastAssistant(page)).not.toHaveAttribute("data-status", /running|sending/, { timeout });
}

/** Every panel's identity and visible state, for comparing two views of one chat. */
export async function panelStates(page: Page): Promise<{ runId: string | null; status: string | null; text: string }[]> {
  const panels = page.getByTestId("subagent-panel");
  const out = [];
  for (const panel of await panels.all()) {
    out.push({
      runId: await panel.getAttribute("data-run-id"),
      status: await panel.getAttribute("data-status"),
      text: (await panel.innerText()).replace(/\d+(\.\d+)?\s?(ms|s|m)\b/g, "<t>"),
    });
  }
  return out;
}
