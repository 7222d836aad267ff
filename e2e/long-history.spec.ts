import { expect, test } from "@playwright/test";
import { generateHistory, insertHistory } from "../bench/seed-session";
import { createModels } from "../models";
import { openConnection } from "../server/db/connect";

/**
 * A long chat opens at its end at once, and older turns appear as the reader scrolls up,
 * without losing their place. The history is written straight into the app's database.
 */
const TURNS = 75;

test("a long history opens at the end and reveals older turns on scroll", async ({ page, context }) => {
  await page.goto("/");
  const identity = (await context.cookies()).find((c) => c.name === "dlg_uid")!.value;
  const ownerId = identity.slice(0, identity.lastIndexOf("."));
  const sessionId = `long${Date.now()}`;

  // Straight into the app's database, through models on a connection of our own.
  const connection = await openConnection(new URL("delegate_e2e", process.env.E2E_MONGODB_URI).toString());
  const models = createModels(connection);
  try {
    await models.Session.create({ _id: sessionId, ownerId, title: "A long chat" });
    await insertHistory(models, generateHistory({ sessionId, turns: TURNS, subagents: 10, nestedToolCalls: 3 }));
  } finally {
    await connection.close();
  }

  await page.goto(`/c/${sessionId}`);
  const users = page.getByTestId("message-user");
  await expect(users).toHaveCount(30);
  await expect(page.getByTestId("earlier-turns")).toContainText(`${TURNS - 30} earlier messages`);
  // It opens at the end: the newest answer is on screen.
  await expect(page.getByTestId("message-assistant").last()).toBeInViewport();

  // Scrolling to the top reveals older turns and keeps the one being read in view.
  const reading = users.first();
  const readingText = await reading.innerText();
  await page.getByTestId("message-list").evaluate((el) => el.scrollTo(0, 0));
  await expect(users).toHaveCount(60);
  await expect(page.getByTestId("message-user").filter({ hasText: readingText }).first()).toBeInViewport();
  for (let i = 0; i < 5 && (await users.count()) < TURNS; i++) {
    await page.getByTestId("message-list").evaluate((el) => el.scrollTo(0, 0));
    await page.waitForTimeout(200);
  }
  await expect(users).toHaveCount(TURNS);
  await expect(page.getByTestId("earlier-turns")).toHaveCount(0);
});
