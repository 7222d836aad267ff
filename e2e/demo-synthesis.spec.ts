import { expect, test, type Page } from "@playwright/test";
import { lastAssistant, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * The offline demo model's answers: a short synthesis that cites each
 * subagent by name and task, never a run id, a code block or a re-pasted response (the
 * panels hold those), and five subagents at once for the five modules.
 */
const PARALLEL_PROMPT = "Investigate the open bugs and the release plan";
const FIVE_PROMPT = "Compare the harmonics, constituents, datums, extremes and stations modules";
const MODULES = ["harmonics", "constituents", "datums", "extremes", "stations"];
/** A run's internal label, as the master's model reads it ("explore-bf177ec4"). */
const RUN_LABEL = /\b(explore|general)-[0-9a-z]{6,}\b/;

/** The master's last words: its final markdown block, outside every panel. */
const synthesisOf = (page: Page) => lastAssistant(page).locator(":scope > .markdown").last();

async function expectCollapsed(page: Page): Promise<void> {
  for (const toggle of await lastAssistant(page).getByTestId("subagent-toggle").all())
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
}

test("the parallel prompt's answer is a few lines citing its two subagents by name, a few hundred pixels tall with the panels collapsed", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await startChat(page, PARALLEL_PROMPT);
  await waitForTurnEnd(page);
  await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
  await expectCollapsed(page);

  const synthesis = synthesisOf(page);
  await expect(synthesis).toContainText("The explore agent on the open bugs found notes/bug-triage.md");
  await expect(synthesis).toContainText("The explore agent on the release plan found docs/release-plan.md");
  await expect(synthesis).toContainText("Status: 2 Completed.");
  await expect(synthesis.locator("em").first()).toHaveText("the open bugs");
  expect(await lastAssistant(page).locator(":scope > .markdown").allInnerTexts()).not.toContainEqual(expect.stringMatching(RUN_LABEL));
  await expect(synthesis.locator("pre")).toHaveCount(0);
  // The whole turn (lead, two folded panels, the synthesis, the stats): it used to be about 1,800 px.
  const { height } = (await lastAssistant(page).boundingBox())!;
  expect(height).toBeLessThan(600);
  await shot(page, "demo-parallel-synthesis");
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`five subagents run at once and the answer cites all five (${colorScheme})`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme });
    const page = await context.newPage();
    // Started the way a newcomer would: from the home page's examples, the help's own list.
    await page.goto("/");
    const examples = page.getByTestId("example-prompt");
    await expect(examples).toHaveText([
      PARALLEL_PROMPT,
      FIVE_PROMPT,
      "Deep dive into the tide predictor and the datum conversion",
      "Fix the typo in CONTRIBUTING.md",
      "hello",
    ]);
    await shot(page, `demo-home-prompts-${colorScheme}`);
    await examples.filter({ hasText: FIVE_PROMPT }).click();
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    const panels = page.getByTestId("subagent-panel");
    await expect(panels).toHaveCount(5);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(5);
    await shot(page, `demo-five-running-${colorScheme}`);

    await waitForTurnEnd(page);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="success"]')).toHaveCount(5);
    await expectCollapsed(page);
    const synthesis = synthesisOf(page);
    for (const module of MODULES)
      await expect(synthesis).toContainText(`The explore agent on the ${module} module found src/tidepool/${module}.py`);
    await expect(synthesis).toContainText("Status: 5 Completed.");
    expect(await synthesis.innerText()).not.toMatch(RUN_LABEL);
    // Five collapsed panels, the synthesis and the master's folded reasoning line: about a screen, not the panels' thousands of pixels.
    const { height } = (await lastAssistant(page).boundingBox())!;
    expect(height).toBeLessThan(960);
    await shot(page, `demo-five-done-${colorScheme}`);

    // One panel opened: the whole answer the master cited is there, with the lines it read.
    const first = panels.first();
    await first.getByTestId("subagent-toggle").first().click();
    await expect(first.getByTestId("subagent-response")).toContainText("From src/tidepool/");
    await first.scrollIntoViewIfNeeded();
    await shot(page, `demo-five-panel-open-${colorScheme}`);
    await context.close();
  });
}
