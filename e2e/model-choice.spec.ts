import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { MASTER_PROMPT_MARKER, CHAT_INSTRUCTIONS_HEADING } from "../lib/agent/prompts";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "../test/support/model/scripted-openai-server";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { shot } from "./fixtures";

/**
 * Picking a chat's model in Chromium, against two real OpenAI-compatible servers: the app's
 * own endpoint (MODEL, which lists two models, one reading images) and a second one from
 * ENDPOINTS_FILE. Each answer names the model that wrote it, the requests went where the
 * picker said, and a reload, the share view and the chat's instructions agree.
 */

const isMaster = (r: ScriptedRequest) => String(r.body?.messages?.[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const answer = (who: string) => (r: ScriptedRequest) => scriptedReply({ text: [`${who} ${String(r.body?.model)} answers.`] });

let app: HostileApp;
let beta: ScriptedOpenAIServer;
let dir: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  beta = await startScriptedOpenAIServer(answer("Beta"));
  dir = mkdtempSync(path.join(tmpdir(), "delegate-models-e2e-"));
  const file = path.join(dir, "endpoints.json");
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: [{ id: "beta", label: "Beta", baseURL: beta.url, list: false, models: [{ id: "model-c", label: "Model C" }] }],
    }),
  );
  app = await startHostileApp({
    workspaceFiles: {},
    env: { MODEL: "model-a", ENDPOINTS_FILE: file },
    handler: answer("Alpha"),
    model: {
      models: [
        { id: "model-a", object: "model", context_length: 128_000, architecture: { input_modalities: ["text", "image"] } },
        { id: "model-b", object: "model" },
      ],
    },
  });
});
test.afterAll(async () => {
  await app?.stop();
  await beta?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function sendPrompt(page: Page, text: string): Promise<void> {
  await page.getByTestId("composer").fill(text);
  await page.getByTestId("send").click();
}

test("a chat answered by one model, then another: each answer names its model, and the requests went where the picker said", async ({
  page,
}) => {
  await page.goto(app.baseUrl);
  const picker = page.getByTestId("model-picker");
  await expect(picker).toBeVisible({ timeout: 30_000 });
  await expect(picker.locator("optgroup")).toHaveCount(2);
  await expect(picker.locator("option")).toHaveText([/^model-a — 128k context · images/, /^model-b$/, /^Model C$/]);
  await expect(picker).toHaveValue("default/model-a");

  await picker.selectOption("beta/model-c");
  await sendPrompt(page, "Who answers first?");
  await expect(page).toHaveURL(/\/c\//);
  const models = page.getByTestId("turn-model");
  await expect(page.getByText("Beta model-c answers.")).toBeVisible();
  await expect(models).toHaveText(["Model C via Beta"]);
  await expect(picker).toHaveValue("beta/model-c");

  await picker.selectOption("default/model-b");
  await sendPrompt(page, "And who now?");
  await expect(page.getByText("Alpha model-b answers.")).toBeVisible();
  await expect(models).toHaveText(["Model C via Beta", /^model-b via 127\.0\.0\.1:\d+$/]);
  expect(beta.requests.filter(isMaster).map((r) => r.body.model)).toEqual(["model-c"]);
  expect(app.model.requests.filter(isMaster).map((r) => r.body.model)).toEqual(["model-b"]);
  await shot(page, "model-picker");

  await page.reload();
  await expect(page.getByTestId("turn-model")).toHaveText(["Model C via Beta", /^model-b via /]);
  await expect(page.getByTestId("model-picker")).toHaveValue("default/model-b");

  // The share view shows each answer's model too.
  const sessionId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  const created = await page.evaluate(async (id) => {
    const res = await fetch(`/api/sessions/${encodeURIComponent(id)}/shares`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ expiresIn: "1d", inspector: false, public: true }),
    });
    return (await res.json()) as { path: string };
  }, sessionId);
  await page.goto(`${app.baseUrl}${created.path}`);
  await expect(page.getByTestId("turn-model")).toHaveText(["Model C via Beta", /^model-b via /]);
});

test("a chat's instructions reach its next request's system prompt, and the header says the chat has some", async ({ page }) => {
  await page.goto(app.baseUrl);
  await expect(page.getByTestId("model-picker")).toBeVisible({ timeout: 30_000 });
  await sendPrompt(page, "Hello there");
  await expect(page.getByTestId("turn-model")).toHaveCount(1);

  const button = page.getByTestId("instructions-button");
  await expect(button).toHaveAccessibleName("Instructions");
  await button.click();
  const dialog = page.getByTestId("instructions-dialog");
  await expect(page.getByTestId("instructions-text")).toBeFocused();
  await page.getByTestId("instructions-text").fill("Answer in French.");
  await shot(page, "instructions-dialog");
  await dialog.getByTestId("instructions-save").click();
  await expect(dialog).toBeHidden();
  await expect(button).toHaveAccessibleName("Instructions (set for this chat)");

  const before = app.model.requests.length;
  await sendPrompt(page, "Bonjour?");
  await expect(page.getByTestId("turn-model")).toHaveCount(2);
  const system = String(app.model.requests.slice(before).find(isMaster)!.body.messages[0].content);
  expect(system).toContain(`${CHAT_INSTRUCTIONS_HEADING}\n\nAnswer in French.`);

  // After a reload the dialog holds them, and Remove clears them.
  await page.reload();
  await expect(button).toHaveAccessibleName("Instructions (set for this chat)");
  await button.click();
  await expect(page.getByTestId("instructions-text")).toHaveValue("Answer in French.");
  await page.getByTestId("instructions-clear").click();
  await expect(button).toHaveAccessibleName("Instructions");
});
