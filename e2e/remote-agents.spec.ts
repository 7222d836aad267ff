import { expect, test } from "@playwright/test";
import { isMasterRequest } from "../test/support/a2a/delegating-master";
import { startTestA2AAgent, type TestA2AAgent } from "../test/support/a2a/test-agent";
import type { HostileApp } from "./support/hostile-app";
import { startRemoteAgentApp } from "./support/remote-agent-app";
import { panelStates, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * A subagent on a remote A2A agent, in Chromium: the app's master (a scripted
 * OpenAI-compatible server) delegates "Delegate: <task>" to `warehouse`, a real A2A agent
 * built with the SDK's server classes, which picks what it does by the task's first word.
 */

let agent: TestA2AAgent;
let app: HostileApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  agent = await startTestA2AAgent();
  app = await startRemoteAgentApp([{ name: "warehouse", a2a: { cardUrl: agent.cardUrl } }]);
});
test.afterAll(async () => {
  await app?.stop();
  await agent?.close();
});

test("a master delegates to a remote A2A agent: its messages and artifact show as the panel's steps, the master reads only the result, a reload shows the same", async ({
  page,
}) => {
  await startChat(page, "Delegate: stream the sales report", app.baseUrl);
  const panel = page.getByTestId("subagent-panel");
  await expect(panel).toHaveCount(1);
  await waitForTurnEnd(page);
  await expect(panel).toHaveAttribute("data-status", "success");
  await expect(page.getByText("The warehouse has answered.")).toBeVisible();

  await panel.getByTestId("subagent-toggle").first().click();
  await expect(panel.getByTestId("subagent-model").first()).toHaveText(`A2A · ${new URL(agent.cardUrl).host}`);
  const steps = panel.getByTestId("subagent-step");
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0)).toContainText("Reading the data");
  await expect(steps.nth(1)).toContainText("Summarising");
  await expect(steps.nth(2)).toContainText("Sales rose 4 % in the third quarter.");
  await shot(page, "remote-agent-panel");

  // The master's second request read the remote's answer, and none of its intermediate messages.
  const asked = app.model.requests.filter(isMasterRequest);
  const read = JSON.stringify(asked.at(-1)!.body.messages.at(-1));
  expect(read).toContain("Sales rose 4 % in the third quarter.");
  expect(read).not.toMatch(/Reading the data|Summarising/);

  const before = await panelStates(page);
  await page.reload();
  await expect(page.getByTestId("subagent-panel")).toHaveCount(1);
  await expect(page.getByTestId("subagent-panel").getByTestId("subagent-step")).toHaveCount(3);
  expect(await panelStates(page)).toEqual(before);
});

test("the panel streams a long remote task live, and killing it cancels the task on the remote agent", async ({ page }) => {
  const cancelsBefore = agent.cancels.length;
  await startChat(page, "Delegate: slow count the pallets", app.baseUrl);
  const panel = page.locator('[data-testid="subagent-panel"][data-status="running"]').first();
  await expect(panel).toBeVisible();
  await panel.getByTestId("subagent-toggle").first().click();
  // Live: steps keep arriving while it runs.
  await expect(panel.getByTestId("subagent-step").first()).toContainText("Still counting");
  const seen = await panel.getByTestId("subagent-step").count();
  await expect.poll(() => panel.getByTestId("subagent-step").count(), { timeout: 15_000 }).toBeGreaterThan(seen);
  const runId = await panel.getAttribute("data-run-id");
  const run = page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`);
  await run.getByTestId("kill").first().click();
  await run.getByTestId("kill-confirm").first().click();
  await expect(run).toHaveAttribute("data-status", "error");
  await expect(run).toContainText(/killed/i);
  await expect
    .poll(() => agent.cancels.length, { message: "the remote agent saw the cancel", timeout: 15_000 })
    .toBeGreaterThan(cancelsBefore);
  await waitForTurnEnd(page);
  await page.reload();
  await expect(page.locator(`[data-testid="subagent-panel"][data-run-id="${runId}"]`)).toHaveAttribute("data-status", "error");
});

test("a remote agent that sends garbage ends only its run, with an error a person can read", async ({ page }) => {
  await startChat(page, "Delegate: garbage please", app.baseUrl);
  await waitForTurnEnd(page);
  const panel = page.getByTestId("subagent-panel");
  await expect(panel).toHaveAttribute("data-status", "error");
  await expect(page.getByText("The warehouse has answered.")).toBeVisible();
  await panel.getByTestId("subagent-toggle").first().click();
  await expect(panel).toContainText("answered something A2A does not allow");
  await shot(page, "remote-agent-garbage");
});

test("a remote agent's question shows as a card on its panel; the person's answer goes back into the task, which completes", async ({
  page,
}) => {
  await startChat(page, "Delegate: ask about sales", app.baseUrl);
  const panel = page.getByTestId("subagent-panel");
  const card = panel.getByTestId("input-card");
  await expect(card.getByTestId("input-message")).toHaveText("Which region?");
  await expect(panel.getByTestId("input-badge")).toBeVisible();
  await shot(page, "remote-agent-question");
  await card.getByLabel("Your answer").fill("EMEA");
  await card.getByTestId("input-submit").click();
  await waitForTurnEnd(page);
  await expect(panel).toHaveAttribute("data-status", "success");
  await expect(panel.getByTestId("input-outcome")).toBeVisible();
  await expect(panel).toContainText("Sales in EMEA: 42");
  expect(agent.messages).toContain("EMEA");
  await page.reload();
  await expect(page.getByTestId("subagent-panel")).toHaveAttribute("data-status", "success");
  await expect(page.getByTestId("subagent-panel").getByTestId("input-outcome")).toBeVisible();
});
