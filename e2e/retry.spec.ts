import { expect, test, type Page } from "@playwright/test";
import { lastAssistant, shot, startChat, waitForTurnEnd } from "./fixtures";
import { slowAppTest } from "./support/slow-app";

const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
const EDITED_TASK = "open bugs severity";

const panelOf = (page: Page, runId: string) => page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`);

test.describe("retry a failed subagent", () => {
  // At the slow app's pace: at the shared app's, a run can end between the clicks that kill it.
  slowAppTest(
    "kill a subagent, retry it with an edited task, the master answers from the new result, and a reload keeps both runs linked",
    async ({ page }) => {
      slowAppTest.setTimeout(150_000);
      await startChat(page, PARALLEL_PROMPT);
      const running = page.locator('[data-testid="subagent-panel"][data-status="running"]').first();
      await expect(running).toBeVisible();
      const oldRunId = (await running.getAttribute("data-run-id"))!;
      const old = panelOf(page, oldRunId);
      await old.getByTestId("subagent-toggle").click();
      await old.getByTestId("kill").click();
      await old.getByTestId("kill-confirm").click();
      await expect(old).toHaveAttribute("data-status", "error");
      await waitForTurnEnd(page);
      // The first answer had to make do with a killed run.
      await expect(lastAssistant(page)).toContainText("Killed");
      const siblings = await page.getByTestId("subagent-panel").count();
      expect(siblings).toBe(2);

      // Edit the task inline, from the keyboard: the field opens focused and prefilled.
      await old.getByTestId("retry-edit").click();
      const field = old.getByTestId("retry-task");
      await expect(field).toBeFocused();
      const originalTask = await field.inputValue();
      expect(originalTask.length).toBeGreaterThan(0);
      await field.fill(EDITED_TASK);
      await field.scrollIntoViewIfNeeded();
      await shot(page, "retry-edit-task");
      await field.press("Control+Enter");

      // A new turn runs only the retried subagent, then the master answers from its result.
      await expect(page.getByTestId("message-assistant")).toHaveCount(2);
      await waitForTurnEnd(page);
      const answer = lastAssistant(page);
      await expect(answer).toHaveAttribute("data-status", "completed");
      await expect(answer).toContainText(EDITED_TASK);
      await expect(answer).toContainText("Completed");
      await expect(answer).not.toContainText("Killed");
      await expect(page.getByTestId("subagent-panel")).toHaveCount(siblings + 1);

      const retried = answer.getByTestId("subagent-panel");
      await expect(retried).toHaveAttribute("data-status", "success");
      const newRunId = (await retried.getAttribute("data-run-id"))!;
      await expect(retried.getByTestId("retry-of").locator(`[data-run-link="${oldRunId}"]`)).toBeVisible();
      await expect(old.getByTestId("retried-as").locator(`[data-run-link="${newRunId}"]`)).toBeVisible();
      // Once retried, the old run offers no second retry: the newer run is the one to retry.
      await expect(old.getByTestId("retry")).toHaveCount(0);
      await old.getByTestId("subagent-toggle").click();
      await old.scrollIntoViewIfNeeded();
      await shot(page, "retry-old-run-linked");
      await retried.scrollIntoViewIfNeeded();
      await shot(page, "retry-new-turn");

      await page.reload();
      const oldAgain = panelOf(page, oldRunId);
      const newAgain = panelOf(page, newRunId);
      await expect(oldAgain).toHaveAttribute("data-status", "error");
      await expect(oldAgain).toContainText(/killed/i);
      await expect(newAgain).toHaveAttribute("data-status", "success");
      await expect(oldAgain.getByTestId("retried-as").locator(`[data-run-link="${newRunId}"]`)).toBeVisible();
      await expect(newAgain.getByTestId("retry-of").locator(`[data-run-link="${oldRunId}"]`)).toBeVisible();
      await expect(lastAssistant(page)).toContainText(EDITED_TASK);

      // The link leads to the other run's panel.
      await newAgain.getByTestId("retry-of").getByRole("link").click();
      await expect(oldAgain.getByTestId("subagent-toggle")).toBeFocused();
    },
  );

  test("a completed run offers no Retry", async ({ page }) => {
    await startChat(page, "Investigate the release plan");
    await waitForTurnEnd(page);
    const panel = page.getByTestId("subagent-panel").first();
    await expect(panel).toHaveAttribute("data-status", "success");
    await panel.getByTestId("subagent-toggle").click();
    await expect(panel.getByTestId("subagent-response")).toBeVisible();
    await expect(panel.getByTestId("retry")).toHaveCount(0);
  });
});
