import { cpSync } from "node:fs";
import path from "node:path";
import { contrast, luminance, renderedColours } from "./colour";
import { expect, test, type Page } from "@playwright/test";
import { lastAssistant, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Human approval in Chromium with the demo's "fix the typo" playbook: the edit is asked
 * for by a subagent at depth 2 (master → general → general → file_edit). Specs run in
 * order on one app whose workspace is a copy: the denials come first, the approval last
 * (it fixes the typo, and puts the file back after).
 */
const FIX_PROMPT = "Fix the typo in CONTRIBUTING.md";

/** The card of the waiting call, wherever it is nested (the banner's Review opens the panels down to it). */
async function reviewCard(page: Page) {
  const banner = page.getByTestId("approval-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("general is waiting for your approval to run file_edit");
  await page.getByTestId("approval-review").click();
  const card = page.getByTestId("approval-card");
  await expect(card).toBeVisible();
  await expect(card).toBeFocused();
  return card;
}

/** Relative luminance (0 dark … 1 light) of a CSS rgb()/oklab colour as Chromium reports it. */

test.describe("approval", () => {
  test("a depth-2 request shows on the collapsed panels; deny with a reason, and the answer quotes it", async ({ page }) => {
    await startChat(page, FIX_PROMPT);
    // Collapsed: the outer panel's header says something inside it waits.
    const outer = page.locator('[data-testid="subagent-panel"][data-depth="1"]');
    await expect(outer.getByTestId("approval-badge").first()).toBeVisible();
    await expect(outer).toHaveAttribute("data-waiting-approval", "true");
    await shot(page, "approval-collapsed-badge");

    const card = await reviewCard(page);
    // The card is inside the depth-2 panel, and says who asked, why, and what would change.
    await expect(page.locator('[data-testid="subagent-panel"][data-depth="2"]').getByTestId("approval-card")).toBeVisible();
    await expect(card).toContainText("general asks to run file_edit");
    await expect(card.getByTestId("approval-reason")).toContainText('says "recieve"; it should be "receive"');
    const diff = card.getByTestId("approval-diff");
    await expect(diff.locator('[data-diff="del"]')).toContainText("- Pull requests recieve a first review");
    await expect(diff.locator('[data-diff="add"]')).toContainText("+- Pull requests receive a first review");
    await shot(page, "approval-card");

    // Keyboard only: open "Deny with reason", type, submit.
    await card.getByTestId("approval-deny-with-reason").focus();
    await page.keyboard.press("Enter");
    const reason = card.getByTestId("approval-deny-reason");
    await expect(reason).toBeFocused();
    await page.keyboard.type("Leave it for the author");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");

    await waitForTurnEnd(page);
    await expect(page.getByTestId("approval-banner")).toHaveCount(0);
    await expect(lastAssistant(page)).toContainText('A person denied "file_edit": Leave it for the author');
    const outcome = page.getByTestId("approval-outcome");
    await expect(outcome).toHaveAttribute("data-state", "denied");
    await expect(outcome).toHaveText("Denied: Leave it for the author");
    await shot(page, "approval-denied");
  });

  test("a pending approval survives a reload; a second tab of the same person sees it decided", async ({ page, context }) => {
    const url = await startChat(page, FIX_PROMPT);
    await expect(page.getByTestId("approval-banner")).toBeVisible();
    await page.reload();
    const card = await reviewCard(page);
    await expect(card.getByTestId("approval-diff")).toContainText("recieve");

    const other = await context.newPage();
    await other.goto(url);
    await expect(other.getByTestId("approval-banner")).toBeVisible();
    await card.getByTestId("approval-deny").click();
    await waitForTurnEnd(page);
    await expect(other.getByTestId("approval-banner")).toHaveCount(0);
    await expect(lastAssistant(other)).toContainText('A person denied "file_edit" (no reason given)');
    await other.close();
  });

  test("on a phone in dark mode the card is readable and the diff coloured", async ({ browser }) => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark", hasTouch: true, isMobile: true });
    const page = await phone.newPage();
    await startChat(page, FIX_PROMPT);
    const card = await reviewCard(page);
    const diff = card.getByTestId("approval-diff");
    const colours = (kind: string) => renderedColours(diff.locator(`[data-diff="${kind}"]`).first());
    const [added, removed, context] = [await colours("add"), await colours("del"), await colours("context")];
    expect(new Set([added.background, removed.background, context.background].map(String)).size).toBe(3);
    // Light text on the dark page, readable on each line's own background (AA).
    for (const { color, background } of [added, removed, context]) {
      expect(luminance(color)).toBeGreaterThan(0.4);
      expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
    }
    // The diff scrolls inside the card instead of widening the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await card.scrollIntoViewIfNeeded();
    await shot(page, "approval-mobile-dark");
    await card.getByTestId("approval-deny").click();
    await waitForTurnEnd(page);
    await phone.close();
  });

  test("approve: the nested edit runs and the audit keeps the decision after a reload", async ({ page }) => {
    // The approved edit fixes the typo in the app's copy of the workspace: it is put back
    // after, so that later specs' "fix the typo" turns still ask for approval.
    try {
      await startChat(page, FIX_PROMPT);
      const card = await reviewCard(page);
      await card.getByTestId("approval-approve").click();
      await waitForTurnEnd(page);
      await expect(lastAssistant(page)).toContainText("Done: Edited CONTRIBUTING.md: replaced 1 occurrence.");
      await expect(page.getByTestId("approval-outcome")).toHaveText(/^Approved at \d{1,2}:\d{2}/);

      await page.reload();
      // The panels were opened by Review and stay open; the decided call keeps its record.
      const outcome = page.getByTestId("approval-outcome");
      await expect(outcome).toHaveAttribute("data-state", "approved");
      const chip = page.locator('[data-testid="tool-call"][data-approval="approved"]');
      await chip.locator("button[aria-expanded]").first().click();
      const audit = chip.getByTestId("approval-audit");
      await expect(audit).toContainText(/Approved at .* · by identity /);
      await expect(audit.getByTestId("approval-diff")).toContainText("receive");
      await shot(page, "approval-approved-audit");
    } finally {
      cpSync("workspace/CONTRIBUTING.md", path.join(process.env.E2E_WORKSPACE_DIR!, "CONTRIBUTING.md"));
    }
  });
});
