import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { io as connect, type Socket } from "socket.io-client";
import type { Ack } from "@/lib/contracts";
import { startCluster, type Cluster } from "../test/support/cluster/cluster";
import { lastAssistant, send, shot, waitForTurnEnd } from "./fixtures";

/**
 * A team chat (docs/members.md) in three browsers, signed in as three accounts, across two
 * app processes on one Redis: the owner on process a adds a collaborator and a viewer; the
 * collaborator, on process b, sends the demo's "fix the typo" prompt, whose nested subagent
 * asks to edit a file; the viewer sees the card without its buttons and is refused a
 * decision sent over a raw socket; the owner approves; all three see who decided, live and
 * after a reload. Removing the collaborator closes their view at once, and their next
 * command is refused.
 */
const FIX_PROMPT = "Fix the typo in CONTRIBUTING.md";
const PASSWORD = "team passphrase 1";
const PEOPLE = {
  owner: { email: "olga@example.com", name: "Olga Owner" },
  collaborator: { email: "cole@example.com", name: "Cole Collab" },
  viewer: { email: "vera@example.com", name: "Vera Viewer" },
};

let cluster: Cluster;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const server = process.env.E2E_MONGODB_URI;
  if (!server) throw new Error("E2E_MONGODB_URI is not set (e2e/global-setup.ts sets it)");
  cluster = await startCluster({
    processes: 2,
    mongoUri: new URL(`delegate_members_e2e_${Date.now()}`, server).toString(),
    env: { AUTH_MODE: "open", DEMO_CHUNK_DELAY_MS: "5" },
  });
});

test.afterAll(async () => {
  await cluster?.close();
});

async function signedIn(browser: Browser, baseURL: string, who: keyof typeof PEOPLE): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto("/signup");
  await page.getByTestId("sign-up-email").fill(PEOPLE[who].email);
  await page.getByTestId("sign-up-name").fill(PEOPLE[who].name);
  await page.getByTestId("sign-up-password").fill(PASSWORD);
  await page.getByTestId("sign-up-submit").click();
  await expect(page.getByTestId("composer")).toBeVisible();
  return { context, page };
}

/** A socket of this browser's sign-in, outside the page: what a person could send by hand. */
async function rawSocket(context: BrowserContext, baseUrl: string): Promise<Socket> {
  const cookie = (await context.cookies(baseUrl)).map((c) => `${c.name}=${c.value}`).join("; ");
  const socket = connect(baseUrl, { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

const ask = (socket: Socket, name: string, input: unknown) =>
  new Promise<Ack<unknown>>((resolve) => socket.emit(name, input, (ack: Ack<unknown>) => resolve(ack)));

async function addMember(page: Page, email: string, role: "viewer" | "collaborator", count: number): Promise<void> {
  const dialog = page.getByTestId("members-dialog");
  await page.getByTestId("member-email").fill(email);
  await page.getByTestId("member-new-role").selectOption(role);
  await page.getByTestId("member-add-submit").click();
  await expect(dialog.getByTestId("member-row")).toHaveCount(count);
}

test("owner, collaborator and viewer share a turn across two processes; the owner's decision is everyone's; a removed member is cut off", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const [a, b] = [cluster.node("a"), cluster.node("b")];
  const owner = await signedIn(browser, a.baseUrl, "owner");
  const collaborator = await signedIn(browser, b.baseUrl, "collaborator");
  const viewer = await signedIn(browser, a.baseUrl, "viewer");
  const raws: Socket[] = [];
  try {
    // The owner's chat, and its people.
    await send(owner.page, "Hello team");
    await owner.page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await waitForTurnEnd(owner.page);
    const chatPath = new URL(owner.page.url()).pathname;
    const sessionId = chatPath.split("/").at(-1)!;
    await owner.page.getByTestId("members-button").click();
    await expect(owner.page.getByTestId("member-email")).toBeFocused();
    await addMember(owner.page, PEOPLE.collaborator.email, "collaborator", 2);
    await addMember(owner.page, PEOPLE.viewer.email, "viewer", 3);
    await shot(owner.page, "members-dialog-owner");
    await owner.page.keyboard.press("Escape");

    // Both members have it in their sidebars, marked shared by the owner.
    await expect(collaborator.page.getByTestId("session-shared")).toHaveText(`Shared by ${PEOPLE.owner.name}`);
    await expect(viewer.page.getByTestId("session-shared")).toHaveText(`Shared by ${PEOPLE.owner.name}`);

    await viewer.page.goto(chatPath);
    await expect(viewer.page.getByTestId("viewer-note")).toBeVisible();
    // Who has it open now, across both processes, in the header (the viewer is on a, the owner too).
    await expect(owner.page.getByTestId("presence")).toHaveAttribute("title", /Viewing now: .*Vera Viewer/);
    await expect(viewer.page.getByTestId("composer")).toBeDisabled();
    await collaborator.page.goto(chatPath);
    // A prompt in progress shows to the others as "… is typing", and goes stale once it is sent.
    await expect(collaborator.page.getByTestId("members-button")).toHaveAttribute("aria-label", /3 people/);
    await collaborator.page.getByTestId("composer").pressSequentially("Fix the typo", { delay: 150 });
    await expect(owner.page.getByTestId("typing")).toHaveText(`${PEOPLE.collaborator.name} is typing…`);
    await expect(viewer.page.getByTestId("presence")).toHaveAttribute("title", /Cole Collab/);
    await collaborator.page.getByTestId("composer").fill("");
    await send(collaborator.page, FIX_PROMPT);

    await expect(owner.page.getByTestId("typing")).toHaveCount(0, { timeout: 10_000 });
    // Everyone sees who asked, and the approval it waits for.
    for (const { page } of [owner, collaborator, viewer]) {
      await expect(page.getByTestId("prompt-sender").last()).toHaveText(PEOPLE.collaborator.name);
      await expect(page.getByTestId("approval-banner")).toBeVisible({ timeout: 30_000 });
      await page.getByTestId("approval-review").click();
      await expect(page.getByTestId("approval-card")).toBeVisible();
    }
    await expect(viewer.page.getByTestId("approval-card").getByTestId("approval-approve")).toHaveCount(0);
    await expect(collaborator.page.getByTestId("approval-card").getByTestId("approval-approve")).toBeVisible();
    await shot(viewer.page, "members-viewer-card");

    // A viewer's decision by hand is refused, in words.
    const viewerSocket = await rawSocket(viewer.context, b.baseUrl);
    raws.push(viewerSocket);
    const refused = await ask(viewerSocket, "tool:decide", { sessionId, callId: "call_any", runId: null, decision: "approve" });
    expect(refused).toMatchObject({ ok: false, code: "forbidden", message: "forbidden: a viewer cannot decide on approvals" });
    await expect(viewer.page.getByTestId("approval-card")).toBeVisible();

    // The owner approves; all three see the decision and who made it, live and after a reload.
    await owner.page.getByTestId("approval-card").getByTestId("approval-approve").click();
    for (const { page } of [owner, collaborator, viewer]) {
      await waitForTurnEnd(page);
      await expect(lastAssistant(page)).toContainText("Done: Edited CONTRIBUTING.md");
      await expect(page.getByTestId("approval-decider")).toHaveText(` · by ${PEOPLE.owner.name}`);
    }
    for (const { page } of [owner, collaborator, viewer]) {
      await page.reload();
      await expect(page.getByTestId("approval-outcome")).toHaveAttribute("data-state", "approved");
      await expect(page.getByTestId("approval-decider")).toHaveText(` · by ${PEOPLE.owner.name}`);
      await expect(page.getByTestId("prompt-sender").last()).toHaveText(PEOPLE.collaborator.name);
    }
    await shot(viewer.page, "members-viewer-decided");

    // The owner removes the collaborator: their view closes at once, on the other process, and their next command is refused.
    const collaboratorSocket = await rawSocket(collaborator.context, a.baseUrl);
    raws.push(collaboratorSocket);
    await owner.page.getByTestId("members-button").click();
    const row = owner.page.getByTestId("member-row").filter({ hasText: PEOPLE.collaborator.name });
    await row.getByTestId("member-remove").click();
    await expect(owner.page.getByTestId("member-row")).toHaveCount(2);
    await expect(collaborator.page.getByTestId("access-lost")).toContainText("You no longer have access to this chat");
    const after = await ask(collaboratorSocket, "turn:send", { sessionId, text: "Still here?" });
    expect(after).toMatchObject({ ok: false, code: "not_found" });
    await shot(collaborator.page, "members-access-lost");
  } finally {
    for (const socket of raws) socket.disconnect();
    for (const person of [owner, collaborator, viewer]) await person.context.close();
  }
});
