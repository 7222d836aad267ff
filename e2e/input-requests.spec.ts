import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { scriptedReply } from "../test/support/model/scripted-openai-server";
import { contrast, renderedColours } from "./colour";
import { shot } from "./fixtures";
import { startHostileApp, type HostileApp } from "./support/hostile-app";

/**
 * A tool's question in Chromium: an MCP server built with the SDK's McpServer asks, in the
 * middle of a call, which size to order (elicitation). The card shows in the chat with a
 * form drawn from the question; a draft that does not fit is refused on the card, an
 * answer finishes the tool with what the person chose, a decline reaches the model, and
 * how it ended stays after a reload. Modelled on approval.spec.ts.
 */
const root = process.cwd();
let app: HostileApp;
let dir: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(path.join(tmpdir(), "delegate-input-e2e-"));
  const config = path.join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        shop: { command: process.execPath, args: [path.join(root, "test/support/mcp/elicit-server.mjs")], requireApproval: false },
      },
    }),
  );
  app = await startHostileApp({
    workspaceFiles: {},
    env: { MCP_CONFIG_FILE: config },
    handler: (request) => {
      const messages: Array<{ role: string; content?: unknown }> = request.body?.messages ?? [];
      const last = messages.at(-1);
      if (last?.role === "tool") return scriptedReply({ text: [`Done: ${String(last.content)}`] });
      return scriptedReply({ text: ["Let me ask you. "], toolCalls: [{ id: "call_order", name: "shop_order", argumentChunks: ["{}"] }] });
    },
  });
});
test.afterAll(async () => {
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ask(page: Page) {
  await page.goto(app.baseUrl);
  await expect(page.getByTestId("tool-servers-button")).toHaveAccessibleName("Tool servers: 1 of 1 connected", { timeout: 30_000 });
  await page.getByTestId("composer").fill("Order me a shirt");
  await page.getByTestId("composer").press("Enter");
  const card = page.getByTestId("input-card");
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText("asks, through shop.order");
  await expect(card.getByTestId("input-message")).toHaveText("Which size should the shirt be?");
  return card;
}

const answer = (page: Page) => page.getByTestId("message-assistant").last();

test("the person answers from the keyboard; a draft that does not fit stays on the card; the answer finishes the tool", async ({
  page,
}) => {
  const card = await ask(page);
  await expect(page.getByTestId("tool-call").filter({ hasText: "needs an answer" })).toBeVisible();
  // The banner above the composer says so too, and Review moves focus to the card.
  await expect(page.getByTestId("input-banner")).toContainText("The agent is waiting for your answer to a question from shop.order.");
  await page.getByTestId("input-review").click();
  await expect(card).toBeFocused();
  await shot(page, "input-card");

  // Submitted with no size: refused on the card, which stays.
  await card.getByTestId("input-submit").focus();
  await page.keyboard.press("Enter");
  await expect(card.getByRole("alert")).toHaveText("The answer does not fit the form: Size is required.");
  await expect(card).toBeVisible();

  const size = card.getByLabel("Size");
  await size.focus();
  await size.selectOption("l");
  await page.keyboard.press("Tab");
  await expect(card.getByLabel("Gift wrap")).toBeFocused();
  await page.keyboard.press("Space");
  await expect(card.getByLabel("Gift wrap")).toBeChecked();
  await page.keyboard.press("Tab");
  await expect(card.getByTestId("input-submit")).toBeFocused();
  await page.keyboard.press("Enter");

  await expect(answer(page)).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(answer(page)).toContainText("Done: Ordered a size l shirt, gift wrapped.");
  await expect(page.getByTestId("input-card")).toHaveCount(0);
  await expect(page.getByTestId("input-banner")).toHaveCount(0);
  const outcome = page.getByTestId("input-outcome");
  await expect(outcome).toHaveAttribute("data-state", "accepted");
  await expect(outcome).toContainText(/Answered by identity \S+ at \d{1,2}:\d{2}(\s?[AP]M)?: Size: l, Gift wrap: yes/);

  await page.reload();
  await expect(page.getByTestId("input-outcome")).toContainText("Size: l, Gift wrap: yes");
  await shot(page, "input-answered");
});

test("on a phone in dark mode the card is readable; a decline reaches the model", async ({ browser }) => {
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark", hasTouch: true, isMobile: true });
  const page = await phone.newPage();
  const card = await ask(page);
  for (const target of [card.getByTestId("input-message"), card.locator("label").first()]) {
    const { color, background } = await renderedColours(target);
    expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await card.scrollIntoViewIfNeeded();
  await shot(page, "input-card-mobile-dark");
  await card.getByTestId("input-decline").click();
  await expect(answer(page)).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
  await expect(answer(page)).toContainText("Done: No order: the person chose to decline.");
  await expect(page.getByTestId("input-outcome")).toHaveAttribute("data-state", "declined");
  await phone.close();
});
