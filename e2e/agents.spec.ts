import { expect, test } from "@playwright/test";
import { send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Making a subagent in the app, in Chromium against the real server and the demo model
 * (which hands "@<agent> <task>" to that agent when it is offered): a field the schema
 * refuses is named under the field, the saved agent is used by the chat's next turn and
 * its panel says which version ran; after an edit the next run says v2, the first still v1.
 */

test.describe.configure({ mode: "serial" });

test("an agent made on the agents page runs in the next turn, and its panels name the version they ran", async ({ page }) => {
  const name = `scout${Date.now().toString(36).slice(-5)}`;
  await page.goto("/agents");
  await page.getByTestId("agent-new").click();
  await page.getByTestId("agent-name").fill("Not A Name");
  await page.getByTestId("agent-description").fill("Reads the release plan and reports what it says");
  await page.getByTestId("agent-instructions").fill("You are a careful reader. Quote what you rely on.");
  await page.getByTestId("agent-save").click();

  // The schema's issue shows under the name, and the field says it is invalid.
  const nameField = page.getByTestId("agent-name");
  await expect(nameField).toHaveAttribute("aria-invalid", "true");
  const describedBy = (await nameField.getAttribute("aria-describedby"))!.split(" ")[0]!;
  await expect(page.locator(`[id="${describedBy}"]`)).toContainText("lowercase letters");
  await expect(nameField).toBeFocused();
  await shot(page, "agents-field-error");

  await nameField.fill(name);
  await page.getByTestId("agent-save").click();
  await expect(page.getByTestId("agents-notice")).toContainText(`Saved ${name} as version 1`);
  await expect(page.locator(`[data-testid="agent-row"][data-agent="${name}"]`)).toBeVisible();

  const chat = await startChat(page, `@${name} the release plan`);
  await waitForTurnEnd(page);
  const first = page.getByTestId("subagent-panel").filter({ hasText: name }).first();
  await expect(first.getByTestId("subagent-definition-version")).toHaveText("v1");

  await page.goto("/agents");
  const row = page.locator(`[data-testid="agent-row"][data-agent="${name}"]`);
  await row.getByTestId("agent-edit").click();
  await page.getByTestId("agent-description").fill("Reads the release plan, strictly");
  await page.getByTestId("agent-save").click();
  await expect(page.getByTestId("agents-notice")).toContainText(`Saved ${name} as version 2`);

  await page.goto(chat);
  await send(page, `@${name} the open bugs`);
  const panels = page.getByTestId("subagent-panel").filter({ hasText: name });
  await expect(panels).toHaveCount(2, { timeout: 45_000 });
  await waitForTurnEnd(page);
  await expect(panels.nth(0).getByTestId("subagent-definition-version")).toHaveText("v1");
  await expect(panels.nth(1).getByTestId("subagent-definition-version")).toHaveText("v2");
  await shot(page, "agents-panel-versions");

  // The panel's "v1" opens the version that run used.
  await panels.nth(0).getByTestId("subagent-definition-version").click();
  await expect(page.getByTestId("agent-version")).toContainText(`${name} · v1`);
  await expect(page.getByTestId("definition-view")).toContainText("Reads the release plan and reports what it says");
});

test("on a phone in dark mode, the composer's Agents panel turns an agent off for the chat, and the next turn does not call it", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  const name = `quiet${Date.now().toString(36).slice(-5)}`;
  await page.goto("/agents");
  await page.getByTestId("agent-new").click();
  await page.getByTestId("agent-name").fill(name);
  await page.getByTestId("agent-description").fill("Answers quietly");
  await page.getByTestId("agent-instructions").fill("Be brief.");
  await page.getByTestId("agent-save").click();
  await expect(page.locator(`[data-testid="agent-row"][data-agent="${name}"]`)).toBeVisible();
  await shot(page, "agents-list-phone-dark");

  await startChat(page, "hello");
  await waitForTurnEnd(page);
  await page.getByTestId("chat-agents-button").click();
  const box = page.getByTestId(`chat-agent-${name}`);
  await expect(box).toBeChecked();
  await box.uncheck();
  await expect(page.getByTestId("chat-agents-button")).toContainText("1 off");
  await shot(page, "agents-chat-panel-phone-dark");
  await page.keyboard.press("Escape");

  await send(page, `@${name} anything`);
  await expect(page.getByTestId("message-assistant")).toHaveCount(2);
  await waitForTurnEnd(page);
  await expect(page.getByTestId("subagent-panel").filter({ hasText: name })).toHaveCount(0);
});
