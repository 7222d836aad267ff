import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { emptyStats, type ChatTurn, type Step, type SubagentProcess } from "../lib/contracts";
import { insertHistory } from "../bench/seed-session";
import { browserOwnerId, withModels } from "./support/app-database";
import { shot } from "./fixtures";

/**
 * A subagent of many steps, stored: its open panel renders only the steps near the view
 * (windowed), the master's reasoning is folded like a subagent's, and the timeline still
 * reaches a call far outside the window, by click and by keyboard. Written straight into
 * the app's database.
 */
const STEPS = 150;
const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function longTurn(sessionId: string): ChatTurn {
  const turnId = `${sessionId}-turn`;
  const steps: Step[] = Array.from({ length: STEPS }, (_, i) => {
    const at = T0 + 2_000 + i * 1_000;
    return {
      text: `Step ${i + 1} looked at \`src/part-${i + 1}.ts\` and noted what it does.`,
      thinking: i % 10 === 0 ? `Reasoning before step ${i + 1}.` : "",
      toolCalls: [
        {
          callId: `call_${i + 1}`,
          name: "grep",
          parameters: JSON.stringify({ pattern: `part ${i + 1}` }),
          response: `src/part-${i + 1}.ts: 3 matches`,
          responseSize: 29,
          status: "success",
          startedAt: iso(at),
          endedAt: iso(at + 300),
        },
      ],
      startedAt: iso(at - 500),
      endedAt: iso(at + 400),
    };
  });
  const run: SubagentProcess = {
    runId: `${sessionId}-run`,
    parentRunId: null,
    depth: 1,
    name: "explore",
    task: "Read every part",
    prompt: "Task: Read every part",
    steps: [...steps, { text: "Every part read.", thinking: "", toolCalls: [] }],
    response: "Every part read.",
    stats: { ...emptyStats(), steps: STEPS + 1 },
    status: "success",
    endReason: "completed",
    startedAt: iso(T0 + 1_000),
    endedAt: iso(T0 + 3_000 + STEPS * 1_000),
  };
  const end = T0 + 5_000 + STEPS * 1_000;
  return {
    turnId,
    sessionId,
    prompt: "Read every part",
    createdAt: iso(T0),
    endedAt: iso(end),
    status: "completed",
    stats: { ...emptyStats(), steps: 2 },
    steps: [
      {
        text: "I will hand this to an explore agent.",
        thinking: "The master's own reasoning: one agent, many parts.",
        toolCalls: [
          {
            callId: "call_spawn",
            name: "subagent",
            parameters: JSON.stringify({ agent: "explore", task: run.task }),
            response: "Every part read.",
            responseSize: 16,
            status: "success",
            subagent: run,
            startedAt: iso(T0 + 1_000),
            endedAt: run.endedAt,
          },
        ],
        startedAt: iso(T0),
        endedAt: run.endedAt,
      },
      { text: "All parts are read.", thinking: "", toolCalls: [], startedAt: run.endedAt, endedAt: iso(end) },
    ],
  };
}

async function longChat(page: Page, context: BrowserContext): Promise<{ sessionId: string; runId: string }> {
  const ownerId = await browserOwnerId(page, context);
  const sessionId = `steps${Date.now()}`;
  await withModels(async (models) => {
    await models.Session.create({ _id: sessionId, ownerId, title: "A long run" });
    await insertHistory(models, [longTurn(sessionId)]);
  });
  return { sessionId, runId: `${sessionId}-run` };
}

test("a long run's open panel renders only the steps near the view, and scrolling shows the rest", async ({ page, context }) => {
  const { sessionId, runId } = await longChat(page, context);
  await page.goto(`/c/${sessionId}`);
  const answer = page.getByTestId("message-assistant");

  // The master's reasoning is folded under Thinking, as a subagent's is.
  const thinking = answer.getByRole("button", { name: "Thinking" }).first();
  await expect(thinking).toHaveAttribute("aria-expanded", "false");
  await expect(answer.getByText("The master's own reasoning")).toHaveCount(0);
  await thinking.click();
  await expect(answer.getByText("The master's own reasoning")).toBeVisible();

  const panel = page.locator(`[data-testid=subagent-panel][data-run-id="${runId}"]`);
  await panel.getByTestId("subagent-toggle").click();
  const list = panel.getByTestId("subagent-steps");
  await expect(list).toHaveAttribute("data-windowed", String(STEPS + 1));
  await expect(list.getByTestId("subagent-step").first()).toBeVisible();
  const rendered = await list.getByTestId("subagent-step").count();
  expect(rendered).toBeLessThan(40);
  // A subagent's reasoning: the same folded section.
  await expect(list.getByRole("button", { name: "Thinking" }).first()).toHaveAttribute("aria-expanded", "false");
  await shot(page, "long-steps-window");

  // Scrolling down the chat brings later steps in and lets earlier ones go.
  const scroller = page.getByTestId("message-list");
  for (let i = 0; i < 60 && (await list.getByText(`Step ${STEPS} looked at`).count()) === 0; i++)
    await scroller.evaluate((el) => el.scrollBy(0, 600));
  await expect(list.getByText(`Step ${STEPS} looked at`)).toBeInViewport();
  await expect(list.getByText("Step 1 looked at")).toHaveCount(0);
  expect(await list.getByTestId("subagent-step").count()).toBeLessThan(40);
});

test("the timeline reaches a call far outside the window, by click and by keyboard", async ({ page, context }) => {
  const { sessionId, runId } = await longChat(page, context);
  await page.goto(`/c/${sessionId}`);
  const turn = page.getByTestId("message-assistant");
  await turn.getByTestId("turn-stats").getByTestId("timeline-toggle").click();
  const timeline = turn.getByTestId("turn-timeline");
  await expect(timeline).toHaveAttribute("data-rows", String(STEPS + 3));

  // The keyboard: End, then up to the run's last call, Enter opens its panel and its chip, in view.
  await timeline.locator("[data-testid=timeline-row][tabindex='0']").focus();
  await page.keyboard.press("End");
  const rows = timeline.getByTestId("timeline-row");
  await expect(rows.last()).toBeFocused();
  await page.keyboard.press("ArrowUp");
  const focused = timeline.locator("[data-testid=timeline-row]:focus");
  await expect(focused).toHaveAttribute("data-call-id", `call_${STEPS}`);
  await page.keyboard.press("Enter");
  const panel = page.locator(`[data-testid=subagent-panel][data-run-id="${runId}"]`);
  await expect(panel.getByTestId("subagent-toggle")).toHaveAttribute("aria-expanded", "true");
  const last = panel.locator(`[data-testid=tool-call][data-call-id="call_${STEPS}"]`);
  await expect(last).toBeInViewport();
  await expect(last.locator("button").first()).toHaveAttribute("aria-expanded", "true");
  await expect(last.locator("button").first()).toBeFocused();

  // A click on a call in the middle, out of the window again by now.
  await timeline.scrollIntoViewIfNeeded();
  const middle = Math.round(STEPS / 2);
  await expect(panel.locator(`[data-testid=tool-call][data-call-id="call_${middle}"]`)).toHaveCount(0);
  const scrollerOf = timeline.getByTestId("timeline-scroller");
  const row = timeline.locator(`[data-testid=timeline-row][data-call-id="call_${middle}"]`);
  await scrollerOf.evaluate((el) => el.scrollTo(0, 0));
  for (let i = 0; i < 40 && (await row.count()) === 0; i++) await scrollerOf.evaluate((el) => el.scrollBy(0, 200));
  await row.click();
  const chip = panel.locator(`[data-testid=tool-call][data-call-id="call_${middle}"]`);
  await expect(chip).toBeInViewport();
  await expect(chip.locator("button").first()).toHaveAttribute("aria-expanded", "true");
  await shot(page, "long-steps-timeline-reveal");
});
