import { expect, test, type Page } from "@playwright/test";
import { MASTER_PROMPT_MARKER } from "../lib/agent/prompts";
import { scriptedReply, type ScriptedRequest } from "../test/support/model/scripted-openai-server";
import { TINY_PNG } from "../test/support/attachments/files";
import { tinyPdf } from "../test/support/attachments/tiny-pdf";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { shot } from "./fixtures";

/**
 * Attachments in Chromium: a text file and a PDF dropped on the home page's composer and a
 * PNG picked with the paperclip are held until the chat exists, uploaded, and named by the
 * first prompt. The scripted model's master has a subagent `file_read` the text and the PDF;
 * the PNG reaches the model (which reads images) as an image part. The prompt shows its
 * files as chips, after a reload too; a file over ATTACHMENT_MAX_BYTES and one of no
 * supported type are refused with a clear sentence, and nothing of them is stored.
 */

type WireMessage = { role: string; content: unknown };
const messagesOf = (r: ScriptedRequest): WireMessage[] => (r.body?.messages ?? []) as WireMessage[];
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);

function answer(r: ScriptedRequest) {
  const results = messagesOf(r).filter((m) => m.role === "tool");
  if (isMaster(r)) {
    // The subagent's answer is the line of its cast result that starts with "notes:".
    if (results.length > 0) return scriptedReply({ text: [`Your files say: ${/notes: .*/.exec(String(results[0]!.content))?.[0]}`] });
    const args = JSON.stringify({ agent: "explore", task: "Read attachments/notes.txt and attachments/tides.pdf." });
    return scriptedReply({ toolCalls: [{ id: "m1", name: "subagent", argumentChunks: [args] }] });
  }
  if (results.length > 0) {
    const said = results.map((m) =>
      String(m.content)
        .split("\n")
        .at(-1)!
        .replace(/^\d+\t/, ""),
    );
    return scriptedReply({ text: [`notes: ${said[0]}; pdf: ${said[1]}`] });
  }
  return scriptedReply({
    toolCalls: [
      { id: "s1", name: "file_read", argumentChunks: [JSON.stringify({ path: "attachments/notes.txt" })] },
      { id: "s2", name: "file_read", argumentChunks: [JSON.stringify({ path: "attachments/tides.pdf" })] },
    ],
  });
}

let app: HostileApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = await startHostileApp({
    workspaceFiles: {},
    env: { MODEL: "seer", ATTACHMENT_MAX_BYTES: "4096" },
    handler: answer,
    model: { models: [{ id: "seer", object: "model", architecture: { input_modalities: ["text", "image"] } }] },
  });
});
test.afterAll(async () => {
  await app?.stop();
});

/** Drops files on the composer as a person dragging them from their desktop would. */
async function dropFiles(page: Page, files: { name: string; type: string; bytes: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, type: f.type, base64: f.bytes.toString("base64") }));
  await page.getByTestId("composer").evaluate((textarea, dropped) => {
    const transfer = new DataTransfer();
    for (const f of dropped) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], f.name, { type: f.type }));
    }
    const box = textarea.parentElement!;
    for (const type of ["dragenter", "dragover", "drop"]) {
      box.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }
  }, payload);
}

async function storedNames(page: Page, sessionId: string): Promise<string[]> {
  const res = await page.request.get(`${app.baseUrl}/api/sessions/${sessionId}/attachments`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { attachments: { name: string }[] }).attachments.map((a) => a.name);
}

test("files dropped and picked on the home page go with the first prompt: a subagent reads them, the image reaches the model, chips stay after a reload; refused files say why and leave nothing", async ({
  page,
}) => {
  await page.goto(app.baseUrl);
  await expect(page.getByTestId("composer")).toBeEnabled({ timeout: 30_000 });

  await dropFiles(page, [
    { name: "notes.txt", type: "text/plain", bytes: Buffer.from("The tide turns at noon.\n") },
    { name: "tides.pdf", type: "application/pdf", bytes: tinyPdf(["Moon phases for June"]) },
  ]);
  await page.getByTestId("attach-input").setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: TINY_PNG });
  const drafts = page.getByTestId("attachment-draft");
  await expect(drafts).toHaveCount(3);
  await expect(drafts.nth(0)).toContainText("notes.txt");
  await expect(drafts.nth(0)).toContainText("24 B");
  await expect(drafts.nth(2)).toContainText("photo.png");
  // Files alone are not a prompt: the box asks for the words that go with them.
  await expect(page.getByTestId("composer")).toHaveAttribute("placeholder", "Say what to do with the attached files…");
  await expect(page.getByTestId("send")).toBeDisabled();
  await page.getByTestId("composer").fill("What do my files say?");
  await shot(page, "attachments-home-composer");

  await page.getByTestId("send").click();
  await expect(page).toHaveURL(/\/c\/[A-Za-z0-9_-]+$/);
  const sessionId = page.url().split("/c/")[1]!;
  await expect(page.getByText("Your files say: notes: The tide turns at noon.; pdf: Moon phases for June")).toBeVisible({
    timeout: 30_000,
  });
  const chips = page.getByTestId("prompt-attachment");
  await expect(chips).toHaveText([/notes\.txt\s*Text · 24 B/, /tides\.pdf\s*PDF/, /photo\.png\s*Image · 70 B/]);
  await expect(drafts).toHaveCount(0);
  await expect(page.getByTestId("prompt-attachment").getByRole("link", { name: /notes\.txt/ })).toHaveAttribute(
    "href",
    new RegExp(`/api/sessions/${sessionId}/attachments/`),
  );

  // The image went to the model as an image part of the master's message.
  const master = app.model.requests.find(isMaster)!;
  const parts = messagesOf(master).at(-1)!.content as { type: string; text?: string; image_url?: { url: string } }[];
  expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
  expect(parts[0]!.text).toContain("- attachments/notes.txt (text, 24 B)");
  expect(parts[1]!.image_url!.url).toBe(`data:image/png;base64,${TINY_PNG.toString("base64")}`);
  await shot(page, "attachments-prompt-chips");

  // In the chat: a file over the limit is refused before upload, one of no supported type by the server.
  await page.getByTestId("attach-input").setInputFiles([
    { name: "big.txt", mimeType: "text/plain", buffer: Buffer.alloc(5000, "a") },
    { name: "tool.bin", mimeType: "application/octet-stream", buffer: Buffer.from([0, 1, 2, 3, 0xff, 0xfe]) },
  ]);
  const big = drafts.filter({ hasText: "big.txt" });
  const binary = drafts.filter({ hasText: "tool.bin" });
  await expect(big).toHaveAttribute("data-state", "failed");
  const tooLarge = '"big.txt" is larger than 4 KiB, the most one attachment may be (ATTACHMENT_MAX_BYTES). Nothing was kept.';
  await expect(big.getByRole("alert")).toHaveText(tooLarge);
  await expect(binary).toHaveAttribute("data-state", "failed");
  await expect(binary.getByRole("alert")).toHaveText(
    '"tool.bin" is neither text, a PDF nor an image (PNG, JPEG, GIF, WebP), so it cannot be attached. Text must be UTF-8.',
  );
  await shot(page, "attachments-refused");
  expect(await storedNames(page, sessionId)).toEqual(["notes.txt", "tides.pdf", "photo.png"]);

  // The server refuses the large file in the same words (the browser's check is only a courtesy).
  const direct = await page.request.post(`${app.baseUrl}/api/sessions/${sessionId}/attachments?name=big.txt`, {
    data: Buffer.alloc(5000, "a"),
    headers: { "content-type": "text/plain", origin: app.baseUrl },
  });
  expect(direct.status()).toBe(413);
  expect(((await direct.json()) as { error: { message: string } }).error.message).toBe(tooLarge);

  // The keyboard removes a refused file.
  await big.getByRole("button", { name: "Remove big.txt" }).focus();
  await page.keyboard.press("Enter");
  await binary.getByRole("button", { name: "Remove tool.bin" }).click();
  await expect(drafts).toHaveCount(0);
  expect(await storedNames(page, sessionId)).toEqual(["notes.txt", "tides.pdf", "photo.png"]);

  await page.reload();
  await expect(chips).toHaveText([/notes\.txt/, /tides\.pdf/, /photo\.png/], { timeout: 30_000 });
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "attachments-after-reload-dark");
});
