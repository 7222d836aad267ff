import { expect, test } from "@playwright/test";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

test.describe("chat", () => {
  test("streams a reply, and a reload shows the same conversation", async ({ page }) => {
    await startChat(page, "hello there");
    await expect(page.getByTestId("message-user").first()).toHaveText(/hello there/);
    await expect(page.getByTestId("demo-badge")).toBeVisible();

    // Streaming: the answer grows while the turn runs, then settles.
    const answer = lastAssistant(page);
    await expect(answer).toHaveAttribute("data-status", "running");
    await expect(answer).not.toHaveText("");
    const early = (await answer.innerText()).length;
    await waitForTurnEnd(page);
    const finalText = await answer.innerText();
    expect(finalText.length).toBeGreaterThan(early);
    await expect(answer.locator("table")).toBeVisible();
    await shot(page, "chat-streamed");

    await page.reload();
    await expect(page.getByTestId("message-user").first()).toHaveText(/hello there/);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    expect(await lastAssistant(page).innerText()).toBe(finalText);
  });

  test("starts a second chat, renames one and deletes the other", async ({ page }) => {
    await startChat(page, "hello one");
    await waitForTurnEnd(page);
    const first = page.url();
    await page.getByTestId("new-session").click();
    await send(page, "hello two");
    await page.waitForURL((url) => url.toString() !== first && /\/c\//.test(url.toString()));
    await waitForTurnEnd(page);

    const items = page.getByTestId("session-item");
    await expect(items.filter({ hasText: "hello one" })).toHaveCount(1);
    await expect(items.filter({ hasText: "hello two" })).toHaveCount(1);
    // Each chat says when it was last active (today: the time), and its tooltip has it all.
    for (const title of ["hello one", "hello two"]) {
      const item = items.filter({ hasText: title });
      await expect(item.getByTestId("session-date")).toHaveText(/^\d{2}:\d{2}$/);
      await expect(item.getByRole("link")).toHaveAttribute("title", new RegExp(`^${title}\n\\d{1,2} \\w{3} \\d{4}, \\d{2}:\\d{2}$`));
    }

    const two = items.filter({ hasText: "hello two" });
    await two.hover();
    await two.getByTestId("session-rename").click();
    // In edit mode the title is an input's value, not text: find the one input on screen.
    const input = page.getByTestId("session-rename-input");
    await input.fill("Renamed chat");
    await input.press("Enter");
    await expect(items.filter({ hasText: "Renamed chat" })).toHaveCount(1);

    const one = items.filter({ hasText: "hello one" });
    await one.hover();
    await one.getByTestId("session-delete").click();
    await one.getByTestId("session-delete-confirm").click();
    await expect(items.filter({ hasText: "hello one" })).toHaveCount(0);

    await page.reload();
    await expect(items.filter({ hasText: "Renamed chat" })).toHaveCount(1);
    await expect(items.filter({ hasText: "hello one" })).toHaveCount(0);
    await shot(page, "sessions-sidebar");
  });

  test("Stop cancels a running turn and keeps what streamed", async ({ page }) => {
    await startChat(page, "Investigate the open bugs and the release plan");
    const answer = lastAssistant(page);
    await expect(page.getByTestId("stop")).toBeVisible();
    await expect(page.getByTestId("subagent-panel").first()).toBeVisible();
    await page.getByTestId("stop").click();
    await expect(answer).toHaveAttribute("data-status", "cancelled");
    await expect(page.getByTestId("stop")).toHaveCount(0);
    // Nothing keeps spinning after a stop.
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(0);
    await page.reload();
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "cancelled");
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(0);
  });
});

test("on a phone the chats drawer keeps keyboard focus inside and closes with Escape", async ({ browser }) => {
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto("/");
  const drawer = page.locator("#session-sidebar");
  await expect(drawer).toBeHidden();
  await page.getByRole("button", { name: "Open chats" }).click();
  await expect(drawer).toBeVisible();
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press(i % 3 === 2 ? "Shift+Tab" : "Tab");
    expect(await page.evaluate(() => document.getElementById("session-sidebar")?.contains(document.activeElement))).toBe(true);
  }
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await phone.close();
});

test("on a phone each of the chat header's menus opens inside the screen", async ({ browser }) => {
  const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
  const page = await phone.newPage();
  await page.goto("/");
  await send(page, "hello");
  await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
  const menus = [
    ["export-button", page.getByRole("menu", { name: "Export this chat" })],
    ["notifications-button", page.getByTestId("notifications-panel")],
    ["share-button", page.getByTestId("share-dialog")],
    ["instructions-button", page.getByTestId("instructions-dialog")],
  ] as const;
  for (const [button, panel] of menus) {
    await page.getByTestId(button).click();
    await expect(panel).toBeVisible();
    const box = (await panel.boundingBox())!;
    expect(box.x, `${button}'s menu starts on the screen`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${button}'s menu ends on the screen`).toBeLessThanOrEqual(375);
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();
  }
  await phone.close();
});
