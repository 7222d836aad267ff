import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { io as connect } from "socket.io-client";
import type { Ack, AgentDetail, AgentList } from "../lib/contracts";
import { startAppProcess, type AppProcess } from "./app-process";
import { send, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Making a subagent in the app, in Chromium against the real server and the demo model
 * (which hands "@<agent> <task>" to that agent when it is offered): a field the schema
 * refuses is named under the field, the saved agent is used by the chat's next turn and
 * its panel says which version ran; after an edit the next run says v2, the first still v1.
 * With accounts on, a person's own definition is theirs alone (page, HTTP, socket and the
 * master's offer), and an admin's shared one is used by everyone's turns.
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
  // Each panel names the model it ran on beside its version.
  for (const k of [0, 1]) await expect(panels.nth(k).getByTestId("subagent-model")).not.toBeEmpty();
  await shot(page, "agents-panel-versions");
  await page.reload();
  await expect(panels).toHaveCount(2);
  await expect(panels.nth(0).getByTestId("subagent-definition-version")).toHaveText("v1");
  await expect(panels.nth(1).getByTestId("subagent-definition-version")).toHaveText("v2");

  // The panel's "v1" opens the version that run used. On a busy machine a click that lands
  // while the reloaded page hydrates can be lost: click again until the version opens.
  const version = page.getByTestId("agent-version");
  await expect(async () => {
    if (!(await version.isVisible())) await panels.nth(0).getByTestId("subagent-definition-version").click({ timeout: 5_000 });
    await expect(version).toContainText(`${name} · v1`, { timeout: 5_000 });
  }).toPass({ timeout: 45_000 });
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

test.describe("with accounts", () => {
  let accountsApp: AppProcess;
  let dataDir: string;

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    dataDir = mkdtempSync(path.join(tmpdir(), "delegate-agents-accounts-"));
    const mongoUri = new URL(`agents_accounts_${Date.now()}`, process.env.E2E_MONGODB_URI).toString();
    accountsApp = await startAppProcess({ mongoUri, dataDir, env: { AUTH_MODE: "open" }, quiet: true });
  });
  test.afterAll(async () => {
    await accountsApp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function signUp(browser: Browser, email: string): Promise<Page> {
    const page = await (await browser.newContext({ baseURL: accountsApp.baseUrl })).newPage();
    await page.goto("/signup");
    await page.getByTestId("sign-up-email").fill(email);
    await page.getByTestId("sign-up-name").fill(email.split("@")[0]!);
    await page.getByTestId("sign-up-password").fill("tide tables at dawn");
    await page.getByTestId("sign-up-submit").click();
    await expect(page.getByTestId("composer")).toBeVisible();
    return page;
  }

  async function makeAgent(page: Page, name: string, { shared = false } = {}): Promise<void> {
    await page.goto("/agents");
    await page.getByTestId("agent-new").click();
    await page.getByTestId("agent-name").fill(name);
    await page.getByTestId("agent-description").fill(`Reads what ${name} is asked to`);
    await page.getByTestId("agent-instructions").fill("Read carefully and report.");
    if (shared) await page.getByTestId("agent-shared").check();
    await page.getByTestId("agent-save").click();
    await expect(page.getByTestId("agents-notice")).toContainText(`Saved ${name} as version 1`);
  }

  /** What the socket answers `agent:get` for this browser's account (its cookies on a socket of its own). */
  async function getOverSocket(page: Page, id: string): Promise<Ack<AgentDetail>> {
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const socket = connect(accountsApp.baseUrl, {
      transports: ["websocket"],
      extraHeaders: { cookie },
      reconnection: false,
      forceNew: true,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", resolve);
        socket.once("connect_error", reject);
      });
      return await socket.timeout(20_000).emitWithAck("agent:get", { id });
    } finally {
      socket.disconnect();
    }
  }

  test("a person's own agent is theirs alone (page, HTTP, socket, the master's offer); an admin's shared one runs in anyone's turn", async ({
    browser,
  }) => {
    // The first account is the admin.
    const ada = await signUp(browser, "ada@example.com");
    const bob = await signUp(browser, "bob@example.com");

    await makeAgent(bob, "bobscout");
    const mine = ((await (await bob.request.get("/api/agents")).json()) as AgentList).mine;
    const id = mine.find((a) => a.definition.name === "bobscout")!.id!;
    // Its owner reads it both ways.
    expect((await bob.request.get(`/api/agents/${id}`)).status()).toBe(200);
    expect(await getOverSocket(bob, id)).toMatchObject({ ok: true });

    // Ada, though admin, neither sees nor reads it.
    await ada.goto("/agents");
    await expect(ada.getByTestId("agent-row").first()).toBeVisible();
    await expect(ada.locator('[data-testid="agent-row"][data-agent="bobscout"]')).toHaveCount(0);
    const http = await ada.request.get(`/api/agents/${id}`);
    expect(http.status()).toBe(404);
    expect(await http.json()).toMatchObject({ error: { code: "not_found" } });
    expect(await getOverSocket(ada, id)).toMatchObject({ ok: false, code: "not_found" });
    // Nor can her turns use it: her master is not offered it.
    await startChat(ada, "@bobscout read the plan");
    await waitForTurnEnd(ada);
    await expect(ada.getByTestId("subagent-panel")).toHaveCount(0);

    // A definition Ada shares runs in Bob's turn, and his panel names it.
    await makeAgent(ada, "teamscout", { shared: true });
    await expect(ada.locator('[data-testid="agent-row"][data-agent="teamscout"]')).toBeVisible();
    await startChat(bob, "@teamscout read the plan");
    await waitForTurnEnd(bob);
    const panel = bob.getByTestId("subagent-panel").filter({ hasText: "teamscout" });
    await expect(panel).toHaveCount(1);
    await expect(panel.getByTestId("subagent-definition-version")).toHaveText("v1");
    await ada.context().close();
    await bob.context().close();
  });
});
