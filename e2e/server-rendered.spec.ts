import { expect, test, type Browser, type BrowserContext, type Page, type WebSocketRoute } from "@playwright/test";
import type { ChatTurn } from "../lib/contracts";
import { generateHistory, insertHistory } from "../bench/seed-session";
import { browserOwnerId, withModels } from "./support/app-database";
import { TURNS_PER_PAGE } from "../components/chat/turn-window";
import { lastAssistant, panelStates, shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * The chat page's HTML holds the join's first page of turns (server/http/page-viewer.ts):
 * a reload shows the conversation at first paint, before the app's script or the socket,
 * and the socket then joins from the sequence number the HTML was rendered at, so a turn
 * running at the reload streams on with nothing lost or doubled. Only the chat's owner
 * gets any of it.
 */
const TURNS = 40;

/** A stored chat of TURNS turns owned by this browser's person; `edit` may change the turns first. */
async function storedChat(
  page: Page,
  context: BrowserContext,
  label: string,
  edit?: (history: ChatTurn[]) => void,
): Promise<{ sessionId: string; history: ChatTurn[] }> {
  const ownerId = await browserOwnerId(page, context);
  const sessionId = `${label}${Date.now()}`;
  const history = generateHistory({ sessionId, turns: TURNS, subagents: 8, nestedToolCalls: 3 });
  edit?.(history);
  await withModels(async (models) => {
    await models.Session.create({ _id: sessionId, ownerId, title: `Stored chat ${label}` });
    await insertHistory(models, history);
  });
  return { sessionId, history };
}

/** The socket never reaches the server: WebSocket held open and silent, polling refused. */
async function holdSocket(page: Page): Promise<void> {
  await page.routeWebSocket(/\/socket\.io\//, () => undefined);
  await page.route(/\/socket\.io\//, (route) => route.abort());
}

const lastText = (turn: ChatTurn) => turn.steps.at(-1)!.text.trim().split("\n")[0]!.slice(0, 60);

test("a reloaded chat shows its newest turns from the HTML: with no script at all, and hydrated with the socket held back", async ({
  page,
  context,
  browser,
}) => {
  const { sessionId, history } = await storedChat(page, context, "html");
  const newest = history.slice(-TURNS_PER_PAGE);

  // The document itself holds the rendered turns, the newest last.
  const html = await (await page.request.get(`/c/${sessionId}`)).text();
  for (const turn of newest) expect(html).toContain(`data-turn-id="${turn.turnId}"`);
  expect(html).not.toContain(`data-turn-id="${history.at(-TURNS_PER_PAGE - 1)!.turnId}"`);
  expect(html).not.toContain("Loading chat…");

  // A browser with JavaScript off sees the conversation.
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
  try {
    const bare = await noScript.newPage();
    await bare.goto(`/c/${sessionId}`);
    await expect(bare.getByTestId("message-user")).toHaveCount(TURNS_PER_PAGE);
    await expect(bare).toHaveTitle("Stored chat html · Delegate");
    await expect(bare.getByTestId("message-user").last()).toHaveText(newest.at(-1)!.prompt);
    await expect(bare.getByTestId("message-assistant").last()).toContainText(lastText(newest.at(-1)!));
  } finally {
    await noScript.close();
  }

  // The app's scripts held back too: only the HTML's own line of script has run, and
  // the list already opens at its end.
  await holdSocket(page);
  // Scripts only: a Turbopack build serves its CSS from the same folder.
  await page.route(/\/_next\/static\/chunks\/.*\.js(\?|$)/, (route) => route.abort());
  await page.goto(`/c/${sessionId}`);
  await expect(lastAssistant(page)).toBeInViewport();
  await page.unroute(/\/_next\/static\/chunks\/.*\.js(\?|$)/);

  // Scripts back, socket still held back: the page hydrates from the HTML's data and works.
  await page.goto(`/c/${sessionId}`);
  await expect(page.getByTestId("message-user")).toHaveCount(TURNS_PER_PAGE);
  await expect(lastAssistant(page)).toBeInViewport();
  await expect(page.getByTestId("load-earlier")).toHaveText(`Show ${30 - TURNS_PER_PAGE} earlier turns`);
  // The rest of the join's page is held in the browser already: revealed without a socket.
  await expect(async () => {
    const more = page.getByTestId("load-earlier").filter({ hasText: "Show" });
    if (await more.isVisible()) await more.click();
    await expect(page.getByTestId("message-user")).toHaveCount(30, { timeout: 1_000 });
  }).toPass();
  // Past it, the next page needs the socket, which is held back: it is asked for, not faked.
  await expect(page.getByTestId("load-earlier")).not.toHaveText(/^Show/);
  // The first panel's toggle (opening a panel adds the toggles of its children after it).
  const toggle = page.getByTestId("subagent-toggle").first();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await shot(page, "server-rendered-socket-held");
});

test("a turn running at the reload streams on: the socket resumes from the HTML's sequence number, nothing lost or doubled", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const url = await startChat(page, "Investigate the open bugs and the release plan");
  await expect(page.getByTestId("subagent-panel").first()).toBeVisible();

  // After the reload the socket reaches the server only 1.5 s after the HTML, while the
  // turn goes on streaming; every frame of it is kept.
  const frames: { dir: "out" | "in"; data: string }[] = [];
  await page.routeWebSocket(/\/socket\.io\//, (ws: WebSocketRoute) => {
    setTimeout(() => {
      const server = ws.connectToServer();
      ws.onMessage((data) => {
        frames.push({ dir: "out", data: String(data) });
        server.send(data);
      });
      server.onMessage((data) => {
        frames.push({ dir: "in", data: String(data) });
        ws.send(data);
      });
    }, 1_500);
  });
  const response = await page.reload();
  const html = await response!.text();
  expect(html).toMatch(
    /data-testid="message-assistant"[^>]*data-status="running"|data-status="running"[^>]*data-testid="message-assistant"/,
  );
  await waitForTurnEnd(page, 90_000);

  // One join, a resume from the HTML's point, answered by a replay (no second snapshot),
  // and the events streamed meanwhile came in that replay.
  const joins = frames.filter((f) => f.dir === "out" && f.data.includes('"session:join"'));
  expect(joins).toHaveLength(1);
  expect(joins[0]!.data).toMatch(/"lastSeq":\d+/);
  const ackId = joins[0]!.data.match(/^42(\d+)/)![1]!;
  const ack = frames.find((f) => f.dir === "in" && f.data.startsWith(`43${ackId}[`));
  expect(ack?.data).toContain('"mode":"replay"');
  const replayEnd = frames.findIndex((f) => f.dir === "in" && f.data.includes('"replay:complete"'));
  expect(replayEnd).toBeGreaterThan(0);
  expect(frames.slice(0, replayEnd).filter((f) => f.dir === "in" && f.data.includes('"agent:event"')).length).toBeGreaterThan(0);

  // What this page ended with equals what the stored chat shows a fresh page.
  const fresh = await context.newPage();
  await fresh.goto(url);
  await expect(lastAssistant(fresh)).toHaveAttribute("data-status", "completed");
  expect(await lastAssistant(page).innerText()).toBe(await lastAssistant(fresh).innerText());
  expect(await panelStates(page)).toEqual(await panelStates(fresh));
  await fresh.close();
});

test("a stranger, or a request with no cookie, gets the page of a chat that does not exist and nothing of the chat", async ({
  page,
  context,
  browser,
  playwright,
}) => {
  const { sessionId, history } = await storedChat(page, context, "stranger");
  const secrets = [history.at(-1)!.prompt, history.at(-1)!.turnId, lastText(history.at(-1)!), "Stored chat stranger"];

  const stranger = await browser.newContext();
  const anonymous = await playwright.request.newContext({ baseURL: process.env.E2E_BASE_URL });
  try {
    const other = await stranger.newPage();
    const theirs = await other.goto(`/c/${sessionId}`);
    const theirsHtml = await theirs!.text();
    const noCookieHtml = await (await anonymous.get(`/c/${sessionId}`)).text();
    for (const secret of secrets) {
      expect(theirsHtml).not.toContain(secret);
      expect(noCookieHtml).not.toContain(secret);
    }
    await expect(other.getByText("This chat does not exist, or it was deleted.")).toBeVisible();
    const shown = await other.locator("main").innerText();

    // Exactly what a chat that does not exist shows.
    const missing = `nochat${Date.now()}`;
    await other.goto(`/c/${missing}`);
    await expect(other.getByText("This chat does not exist, or it was deleted.")).toBeVisible();
    expect(await other.locator("main").innerText()).toBe(shown);
    // The owner, in the meantime, has it.
    await page.goto(`/c/${sessionId}`);
    await expect(page.getByTestId("message-user").last()).toHaveText(history.at(-1)!.prompt);
  } finally {
    await stranger.close();
    await anonymous.dispose();
  }
});

const HOSTILE = `</script><script>window.__pwned=1</script><!--<script>window.__pwned=2</script>\u2028\u2029 ]]> <img src=x onerror="window.__pwned=3"> "); window.__pwned=4; // \\u003c/script> $\{x} </SubagentExecution>`;

test("hostile turn text in the HTML stays text: it cannot end the script it travels in, or run", async ({ page, context, browser }) => {
  const { sessionId, history } = await storedChat(page, context, "hostile", (turns) => {
    const last = turns.at(-1)!;
    last.prompt = HOSTILE;
    last.steps.at(-1)!.text = `Before ${HOSTILE} after`;
    const run = turns.findLast((t) => t.steps.some((s) => s.toolCalls.some((c) => c.subagent)))!;
    const call = run.steps.flatMap((s) => s.toolCalls).find((c) => c.subagent)!;
    call.subagent!.task = HOSTILE;
  });
  const raw = await (await page.request.get(`/c/${sessionId}`)).text();
  expect(raw).not.toContain("<script>window.__pwned");
  expect(raw).not.toContain('onerror="window.__pwned');

  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
  try {
    const bare = await noScript.newPage();
    await bare.goto(`/c/${sessionId}`);
    expect(await bare.getByTestId("message-user").last().textContent()).toBe(HOSTILE);
  } finally {
    await noScript.close();
  }

  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const joined = socketJoined(page);
  await page.goto(`/c/${sessionId}`);
  await joined;
  // Hydrated from the HTML's data and joined, the text is still exactly what was stored.
  expect(await page.getByTestId("message-user").last().textContent()).toBe(HOSTILE);
  await expect(lastAssistant(page)).toContainText("Before </script><script>window.__pwned=1</script>");
  const found = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
    scripts: document.querySelectorAll('[data-testid="message-list"] script, [data-testid="message-list"] img').length,
  }));
  expect(found).toEqual({ pwned: undefined, scripts: 0 });
  expect(dialogs).toEqual([]);
  expect(history.at(-1)!.prompt).toBe(HOSTILE);
});

test("the page hydrates with no mismatch in another language and time zone than the server's", async ({ page, context, browser }) => {
  // The newest turn has a call a person approved just before midnight UTC: past noon the
  // next day in Auckland. The outcome line under the call is in the HTML.
  const decidedAt = "2026-01-01T23:50:00.000Z";
  let turnId = "";
  const { sessionId } = await storedChat(page, context, "hydrate", (turns) => {
    const last = turns.at(-1)!;
    turnId = last.turnId;
    last.steps[0]!.toolCalls.push({
      callId: "approved-call",
      name: "file_write",
      parameters: '{"path":"notes.md"}',
      response: "written",
      responseSize: 7,
      status: "success",
    });
  });
  await withModels((models) =>
    models.ToolCall.updateOne(
      { turnId, callId: "approved-call" },
      {
        $set: {
          approval: { state: "approved", requestedAt: "2026-01-01T23:49:00.000Z", reason: "A note", decidedAt, decidedBy: "someone" },
        },
      },
    ),
  );
  const visitor = await browser.newContext({ locale: "de-DE", timezoneId: "Pacific/Auckland", storageState: await context.storageState() });
  try {
    const errors = await loadAndCollectErrors(visitor, `/c/${sessionId}`, async (page) => {
      // Hydrated, the time is the reader's own.
      await expect(page.getByTestId("approval-outcome")).toHaveText("Approved at 12:50");
    });
    expect(errors).toEqual([]);
  } finally {
    await visitor.close();
  }
});

/** Resolves once the page's socket has joined from the HTML's point (a replay answered). */
function socketJoined(page: Page): Promise<unknown> {
  return page
    .waitForEvent("websocket")
    .then((ws) => ws.waitForEvent("framereceived", { predicate: (f) => String(f.payload).includes('"mode":"replay"') }));
}

/** Loads `path`, waits until it is hydrated and joined (a panel opens; the socket answered), and returns every error the page reported. */
async function loadAndCollectErrors(
  context: BrowserContext | Browser,
  path: string,
  check: (page: Page) => Promise<void>,
): Promise<string[]> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  const joined = socketJoined(page);
  await page.goto(path);
  await joined;
  // The first panel's toggle (opening a panel adds the toggles of its children after it).
  const toggle = page.getByTestId("subagent-toggle").first();
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  await check(page);
  await page.close();
  return errors;
}

test("the header names the chat from the first paint: after a rename the server's HTML has the title in the header", async ({
  page,
  context,
}) => {
  const ownerId = await browserOwnerId(page, context);
  const sessionId = `head${Date.now()}`;
  await withModels((models) => models.Session.create({ _id: sessionId, ownerId, title: "Before the rename" }));
  await page.goto(`/c/${sessionId}`);
  const item = page.getByTestId("session-item").filter({ hasText: "Before the rename" });
  await item.hover();
  await item.getByTestId("session-rename").click();
  const input = page.getByTestId("session-rename-input");
  await input.fill("Tide tables, renamed");
  await input.press("Enter");
  await expect(page.getByTestId("session-item").filter({ hasText: "Tide tables, renamed" })).toHaveCount(1);

  // The document itself: the header's heading holds the title, not the app's name.
  const html = await (await page.request.get(`/c/${sessionId}`)).text();
  expect(html).toMatch(/<header\b[^]*?<h1\b[^>]*>Tide tables, renamed(<!-- -->)*<\/h1>/);
  expect(html).toContain("<title>Tide tables, renamed · Delegate</title>");
  // Hydrated with the socket held back (no chat list arrives), the heading keeps the title.
  await holdSocket(page);
  await page.goto(`/c/${sessionId}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tide tables, renamed");
  // No chat open: the header names the app again.
  await page.unrouteAll();
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Delegate");
});

test("a prompt typed before the page's script is ready is kept when it is, and Enter sends it", async ({ page }) => {
  // The script is held back until the person has typed into the box of the server's HTML.
  let release!: () => void;
  const scriptHeld = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/chunks/*.js", async (route) => {
    await scriptHeld;
    await route.continue();
  });
  await page.goto("/", { waitUntil: "commit" });
  const composer = page.getByTestId("composer");
  await composer.fill("Typed while the page was loading");
  // Hydrated: the socket connects from the app's script, after the page's first effects.
  const socket = page.waitForEvent("websocket");
  release();
  await socket;
  await expect(composer).toHaveValue("Typed while the page was loading");
  await composer.press("Enter");
  await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId("message-user").last()).toContainText("Typed while the page was loading");
  await waitForTurnEnd(page);
});
