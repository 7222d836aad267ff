import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { scriptedReply } from "../test/support/model/scripted-openai-server";
import { startHostileApp, type HostileApp } from "./support/hostile-app";
import { shot } from "./fixtures";

/**
 * MCP tool servers in a real browser: the app starts server-everything and the hostile
 * SDK server over stdio (and one that cannot start), the header lists them with their
 * tools, and an MCP call made by a scripted model shows in the chat like a built-in call.
 */
const root = process.cwd();
let app: HostileApp;
let dir: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(path.join(tmpdir(), "delegate-mcp-e2e-"));
  const config = path.join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      servers: {
        everything: {
          command: process.execPath,
          args: [path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
        },
        hostile: { command: process.execPath, args: [path.join(root, "test/support/mcp/hostile-server.mjs")] },
        broken: { command: process.execPath, args: ["-e", "process.stderr.write('boom: no API key'); process.exit(2)"] },
      },
    }),
  );
  app = await startHostileApp({
    workspaceFiles: {},
    env: { MCP_CONFIG_FILE: config },
    handler: (request) => {
      const messages: Array<{ role: string; content?: unknown }> = request.body?.messages ?? [];
      if (messages.at(-1)?.role === "tool") return scriptedReply({ text: ["Done."] });
      return scriptedReply({
        toolCalls: [
          {
            id: "call_mcp_1",
            name: "everything_echo",
            argumentChunks: [JSON.stringify({ message: "<img src=x onerror=window.__pwned=1> from MCP" })],
          },
        ],
      });
    },
  });
});
test.afterAll(async () => {
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the header lists the MCP servers, their state and tools, from the keyboard, as text", async ({ page }) => {
  await page.goto(app.baseUrl);
  const button = page.getByTestId("tool-servers-button");
  await expect(button).toHaveAccessibleName("Tool servers: 2 of 3 connected", { timeout: 30_000 });
  await button.focus();
  await page.keyboard.press("Enter");
  const panel = page.getByTestId("tool-servers-panel");
  await expect(panel).toBeVisible();
  await expect(panel).toBeFocused();
  const servers = panel.getByTestId("tool-server");
  await expect(servers).toHaveCount(3);
  await expect(servers.filter({ hasText: "everything" })).toContainText("connected");
  await expect(servers.filter({ hasText: "everything" })).toContainText("everything.echo");
  await expect(servers.filter({ hasText: "broken" })).toContainText("failed, retrying");
  await expect(servers.filter({ hasText: "broken" })).toContainText("boom: no API key");
  // Markup in a server's tool names never reaches the page as markup.
  await expect(servers.filter({ hasText: "hostile" })).toContainText("hostile._script_alert_1_script_");
  expect(await panel.locator("script, img").count()).toBe(0);
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "tool-servers-panel");
  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test("an MCP tool call shows in the chat like a built-in call, its output as text", async ({ page }) => {
  await page.goto(app.baseUrl);
  await page.getByTestId("composer").fill("echo through MCP");
  await page.getByTestId("composer").press("Enter");
  const answer = page.getByTestId("message-assistant").last();
  await expect(answer).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  const chip = answer.getByTestId("tool-call");
  await expect(chip).toHaveCount(1);
  await expect(chip).toContainText("everything.echo");
  await chip.getByRole("button").first().click();
  await expect(chip).toContainText("Echo: <img src=x onerror=window.__pwned=1> from MCP");
  expect(await chip.locator("img").count()).toBe(0);
  await shot(page, "tool-servers-call");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
});
