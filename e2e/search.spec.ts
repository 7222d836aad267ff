import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { generateHistory, insertHistory } from "../bench/seed-session";
import { termsOf } from "../lib/search/terms";
import { browserOwnerId, withModels } from "./support/app-database";
import { indexTurns } from "../server/data/search-index";
import { shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Search over one's chats from the sidebar: typed, debounced, results with the
 * match highlighted; opening one opens the chat at the matching turn, even when that turn
 * is in an older page than the join sends. And the sidebar pages through many chats.
 */

async function attachShot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await shot(page, name);
  await testInfo.attach(name, { body: await page.screenshot(), contentType: "image/png" });
}

test("type in the sidebar's search, see highlighted results, open one at its turn", async ({ page, context }, testInfo) => {
  const ownerId = await browserOwnerId(page, context);
  const sessionId = `srch${Date.now()}`;
  // 60 turns: the join sends the newest 30, so turn 8 is two pages back.
  const history = generateHistory({ sessionId, turns: 60, subagents: 4, nestedToolCalls: 2 });
  history[8]!.prompt = "Where does the Zanzibar lighthouse keeper log the tides?";
  await withModels(async (models) => {
    await models.Session.create({ _id: sessionId, ownerId, title: "Harbour log", titleTerms: termsOf("Harbour log"), searchIndexed: true });
    await insertHistory(models, history);
    await indexTurns(models, sessionId, history);
  });

  // A live chat too: its title and answer are searchable once its turn ends.
  await startChat(page, "hello");
  await waitForTurnEnd(page);

  // "/" focuses the search box from anywhere but a text field.
  await page.getByTestId("message-list").click();
  await page.keyboard.press("/");
  const box = page.getByTestId("session-search");
  await expect(box).toBeFocused();
  await page.keyboard.type("zanzib", { delay: 30 });
  const hits = page.getByTestId("search-hit");
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toContainText("Harbour log");
  await expect(hits.first().locator("mark")).toHaveText("Zanzibar");
  await expect(page.getByTestId("session-item").first()).toBeHidden();
  await attachShot(page, testInfo, "search-results");

  // Enter opens the chat at the matching turn, loading the older pages it needs.
  await page.keyboard.press("Enter");
  await page.waitForURL(new RegExp(`/c/${sessionId}$`));
  const sought = page.locator(`[data-turn-id="${history[8]!.turnId}"]`);
  await expect(sought).toBeInViewport({ timeout: 15_000 });
  await expect(page.getByTestId("message-user").filter({ hasText: "Zanzibar lighthouse" })).toBeInViewport();
  await attachShot(page, testInfo, "search-opened-turn");

  // Ctrl+K, then the live chat by its title; arrows and Escape.
  await page.keyboard.press("Control+k");
  await expect(box).toBeFocused();
  await box.fill("hel");
  await expect(hits.first()).toContainText("hello");
  await page.keyboard.press("Escape");
  await expect(box).toHaveValue("");
  await expect(page.getByTestId("session-item").first()).toBeVisible();

  // Nothing found: said plainly, with the toggle to widen the search.
  await box.fill("qqqxyzzy");
  await expect(page.getByTestId("search-empty")).toContainText("No chats match “qqqxyzzy”");
  await page.getByTestId("search-subagents").check();
  await expect(page.getByTestId("search-empty")).toContainText("No chats match");
});

test("the sidebar loads more chats as it scrolls, and shows a date for each", async ({ page, context }) => {
  const ownerId = await browserOwnerId(page, context);
  const base = Date.now() - 10 * 86_400_000;
  await withModels((models) =>
    models.Session.collection.insertMany(
      Array.from({ length: 130 }, (_, i) => {
        const at = new Date(base + i * 3_600_000);
        return {
          _id: `page${Date.now()}x${i}` as never,
          ownerId,
          title: `Archived chat ${i}`,
          seqReserved: 0,
          titleTerms: termsOf(`Archived chat ${i}`),
          searchIndexed: true,
          createdAt: at,
          updatedAt: at,
        };
      }),
    ),
  );
  await page.goto("/");
  const items = page.getByTestId("session-item");
  await expect(items).toHaveCount(50);
  await expect(items.first().getByTestId("session-date")).not.toHaveText("");
  await page.getByRole("navigation", { name: "Sessions" }).evaluate((nav) => nav.scrollTo(0, nav.scrollHeight));
  await expect(items).toHaveCount(130);
  await expect(items.last()).toContainText("Archived chat 0");
  await expect(page.getByTestId("sessions-end")).not.toHaveAttribute("data-has-more", "true");
});
