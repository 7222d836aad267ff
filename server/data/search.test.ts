import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_PAGE_SIZE, type ChatTurn, type SearchResults, type SessionPage, type SessionSummary } from "@/lib/contracts";
import { newTurn } from "@/lib/turn/reduce";
import { openSession, request, startHarness, waitFor, type Harness, type TestClient } from "@/test/support/server/app-harness";
import { fakeRunner } from "@/test/support/turn/fake-runner";

/**
 * Search over one's own chats and the sidebar's pages, through the socket
 * commands of the real server on the real database server. Turns are run by a fake
 * runner (no model needed) that answers each prompt as `scripts` says, first running a
 * subagent when the script has a result for one.
 */

const scripts = new Map<string, { answer: string; subagent?: string }>();

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness("search", {
    runner: fakeRunner(async (turn) => {
      const script = scripts.get(turn.turn().prompt);
      const delegated = script?.subagent;
      if (delegated) {
        const ref = turn.startSubagent("look it up");
        turn.publish({
          type: "subagent_completed",
          ...ref,
          response: delegated,
          stats: turn.stats,
          endReason: "completed",
          endedAt: turn.at,
        });
        turn.publish({
          type: "turn:data",
          turnId: turn.turnId,
          runId: null,
          data: { kind: "tool_result", callId: "c1", response: "done", responseSize: 4, status: "success" },
        });
      }
      const answer = script?.answer ?? "OK.";
      turn.publish({
        type: "turn:data",
        turnId: turn.turnId,
        runId: null,
        data: { kind: "token", step: delegated ? 1 : 0, offset: 0, text: answer },
      });
    }),
  });
});
afterAll(async () => {
  await harness?.close();
});

async function search(socket: TestClient, query: string, subagents?: boolean): Promise<SearchResults> {
  const ack = await request(socket, "session:search", subagents === undefined ? { query } : { query, subagents });
  if (!ack.ok) throw new Error(ack.message);
  return ack.data;
}

/** Sends a prompt in a new chat of the person with `cookie` (a new person without), and waits until search has the ended turn. */
async function chatWith(
  prompt: string,
  script: { answer: string; subagent?: string },
  cookie?: string,
  title?: string,
): Promise<{ cookie: string; socket: TestClient; sessionId: string; turnId: string }> {
  scripts.set(prompt, script);
  const opened = await openSession(harness, cookie);
  const sent = await request(opened.socket, "turn:send", { sessionId: opened.sessionId, text: prompt });
  if (!sent.ok) throw new Error(sent.message);
  // Indexed as the turn ends (every scripted turn answers something).
  await until(
    async () => Boolean((await harness.models.SearchEntry.findById(sent.data.turnId).lean<{ answer: string }>())?.answer),
    "the turn indexed",
  );
  if (title) {
    // Once the turn's writes are all stored. On FerretDB 1.x an update reads the document
    // and writes it back whole, so a rename beside a late write of the turn's (the time of
    // activity, the first prompt's title) can be lost there; MongoDB updates in place.
    await (await harness.app.registry.peek(opened.sessionId))?.settled();
    const renamed = await request(opened.socket, "session:rename", { sessionId: opened.sessionId, title });
    if (!renamed.ok) throw new Error(renamed.message);
  }
  return { ...opened, turnId: sent.data.turnId };
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what} ${JSON.stringify(await harness.models.SearchEntry.find().lean())}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ids = (results: SearchResults) => results.hits.map((h) => h.session.sessionId);

describe("search over one's own chats", () => {
  it("finds a chat by its title, its prompt and its answer, with the match highlighted in the snippet", async () => {
    const a = await chatWith(
      "Where do the pelicans nest?",
      { answer: "Pelicans nest on the quayside of Marseille." },
      undefined,
      "Harbour birds",
    );
    const byTitle = await search(a.socket, "harbour birds ");
    expect(ids(byTitle)).toEqual([a.sessionId]);
    expect(byTitle.hits[0]!.field).toBe("title");
    expect(byTitle.hits[0]!.titleHighlights).toEqual([
      [0, 7],
      [8, 13],
    ]);

    const byPrompt = await search(a.socket, "pelicans nest");
    expect(ids(byPrompt)).toEqual([a.sessionId]);
    expect(byPrompt.hits[0]!.field).toBe("prompt");
    expect(byPrompt.hits[0]!.turnId).toBe(a.turnId);
    const { text, highlights } = byPrompt.hits[0]!.snippet;
    expect(highlights.map(([s, e]) => text.slice(s, e))).toEqual(["pelicans", "nest"]);

    const byAnswer = await search(a.socket, "quayside marseille");
    expect(byAnswer.hits[0]!.field).toBe("answer");
    expect(byAnswer.hits[0]!.session.title).toBe("Harbour birds");
  });

  it("searches subagents' results only when asked to", async () => {
    const a = await chatWith("Check the tide tables", {
      answer: "Done, see the panel.",
      subagent: "The semidiurnal constituent dominates at Brest.",
    });
    expect((await search(a.socket, "semidiurnal")).hits).toEqual([]);
    const withSubagents = await search(a.socket, "semidiurnal", true);
    expect(ids(withSubagents)).toEqual([a.sessionId]);
    expect(withSubagents.hits[0]!.field).toBe("subagent");
    expect(withSubagents.hits[0]!.snippet.text).toContain("semidiurnal constituent");
  });

  it("matches the word being typed by its beginning, and earlier words whole", async () => {
    const a = await chatWith("Tell me about the anemometer calibration", { answer: "Calibrate it yearly." });
    expect(ids(await search(a.socket, "anemo"))).toEqual([a.sessionId]);
    expect(ids(await search(a.socket, "anemometer calib"))).toEqual([a.sessionId]);
    // A finished word (followed by a space) must match whole: "anemo " is not a word there.
    expect((await search(a.socket, "anemo calibration")).hits).toEqual([]);
    expect((await search(a.socket, "anemo ")).hits).toEqual([]);
  });

  it("folds case and diacritics both ways", async () => {
    const a = await chatWith("Recette de la crème brûlée", { answer: "Caramélisez le sucre." });
    expect(ids(await search(a.socket, "CREME brulee"))).toEqual([a.sessionId]);
    expect(ids(await search(a.socket, "caramelisez"))).toEqual([a.sessionId]);
    const b = await chatWith("Notes on the Zurich creme schnitte", { answer: "none" }, a.cookie);
    expect(new Set(ids(await search(a.socket, "crème")))).toEqual(new Set([a.sessionId, b.sessionId]));
  });

  it("never answers with another person's chats, even for the same words", async () => {
    const mine = await chatWith("The quokka census", { answer: "12,000 quokkas on Rottnest." }, undefined, "Quokka census");
    const theirs = await chatWith("The quokka census", { answer: "12,000 quokkas on Rottnest." }, undefined, "Quokka census");
    expect(ids(await search(mine.socket, "quokka"))).toEqual([mine.sessionId]);
    expect(ids(await search(theirs.socket, "quokka census"))).toEqual([theirs.sessionId]);
    expect(ids(await search(mine.socket, "rottnest", true))).toEqual([mine.sessionId]);
  });

  it("ranks a chat named for the words above one that only mentions them in an answer", async () => {
    const person = await harness.newCookie();
    const mention = await chatWith("Weekly notes", { answer: "we also touched on the lighthouse keeper rota." }, person);
    const named = await chatWith("Who keeps it?", { answer: "Nobody yet." }, person, "Lighthouse keeper rota");
    // Titled otherwise: a chat's first prompt is its title until renamed.
    const prompted = await chatWith("Draft the lighthouse keeper rota", { answer: "Here it is." }, person, "Staff planning");
    expect(ids(await search(named.socket, "lighthouse keeper"))).toEqual([named.sessionId, prompted.sessionId, mention.sessionId]);
  });

  it("treats regex metacharacters as plain text and returns nothing for a query without words", async () => {
    const a = await chatWith("Escaping in C", { answer: "use a backslash." });
    for (const query of [".*", "^", "(", "[a-z]+", "\\", "$where", "   "]) expect((await search(a.socket, query)).hits).toEqual([]);
    expect(ids(await search(a.socket, "c++ escap"))).toEqual([a.sessionId]);
  });

  it("finds chats stored before search existed once the start-up backfill has run", async () => {
    const owner = await harness.newCookie();
    const socket = await harness.client(owner);
    const identity = await request(socket, "session:create", { title: "x" });
    if (!identity.ok) throw new Error(identity.message);
    const ownerId = (await harness.models.Session.findById(identity.data.sessionId).lean<{ ownerId: string }>())!.ownerId;
    // As an older version stored it: no title terms, not marked indexed, no search entries.
    const sessionId = "legacychat01";
    await harness.models.Session.collection.insertOne({
      _id: sessionId as never,
      ownerId,
      title: "Old gazetteer",
      seqReserved: 0,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const turn: ChatTurn = {
      ...newTurn({ sessionId, turnId: "legacyturn01", prompt: "List the fjords of Norway", createdAt: new Date().toISOString() }),
      status: "completed",
    };
    await harness.models.Turn.create({
      _id: turn.turnId,
      sessionId,
      prompt: turn.prompt,
      steps: [{ text: "Sognefjord first.", thinking: "" }],
      status: "completed",
      stats: turn.stats,
      createdAt: new Date(),
    });
    expect((await search(socket, "fjords")).hits).toEqual([]);
    expect(await harness.store.backfillSearch()).toBeGreaterThanOrEqual(1);
    expect(ids(await search(socket, "fjords"))).toEqual([sessionId]);
    expect(ids(await search(socket, "sognefjord"))).toEqual([sessionId]);
    expect(ids(await search(socket, "gazetteer"))).toEqual([sessionId]);
    // Done once: a second run finds nothing left.
    expect(await harness.store.backfillSearch()).toBe(0);
  });

  it("finds an imported chat by its turns and subagents' results, as the importer's only", async () => {
    const a = await chatWith("Survey the marmots", { answer: "Counted them.", subagent: "Forty alpine marmots near the col." });
    const file = await (
      await fetch(`${harness.baseUrl}/api/sessions/${a.sessionId}/export?format=json`, { headers: { cookie: a.cookie } })
    ).text();
    const importer = await harness.newCookie();
    const res = await fetch(`${harness.baseUrl}/api/sessions/import`, {
      method: "POST",
      headers: { cookie: importer, origin: harness.baseUrl, "content-type": "application/json" },
      body: file,
    });
    expect(res.status).toBe(200);
    const copy = ((await res.json()) as { session: { sessionId: string } }).session.sessionId;
    const socket = await harness.client(importer);
    expect(ids(await search(socket, "alpine marmots", true))).toEqual([copy]);
    expect(ids(await search(socket, "survey"))).toEqual([copy]);
    // The original's owner still finds only their own.
    expect(ids(await search(a.socket, "alpine marmots", true))).toEqual([a.sessionId]);
  });

  it("forgets a deleted chat", async () => {
    const a = await chatWith("The mongoose and the cobra", { answer: "a fable." });
    expect(ids(await search(a.socket, "cobra"))).toEqual([a.sessionId]);
    const deleted = await request(a.socket, "session:delete", { sessionId: a.sessionId });
    expect(deleted.ok).toBe(true);
    expect((await search(a.socket, "cobra")).hits).toEqual([]);
    expect(await harness.models.SearchEntry.countDocuments({ sessionId: a.sessionId })).toBe(0);
  });
});

describe("the sidebar's pages", () => {
  async function person(chats: number): Promise<{ socket: TestClient; ownerId: string; all: SessionSummary[] }> {
    const cookie = await harness.newCookie();
    const socket = await harness.client(cookie);
    const first = await request(socket, "session:create", { title: "chat 0" });
    if (!first.ok) throw new Error(first.message);
    const ownerId = (await harness.models.Session.findById(first.data.sessionId).lean<{ ownerId: string }>())!.ownerId;
    // Stored directly, with runs of equal activity times, so ties cross page boundaries.
    const base = Date.parse("2026-11-01T00:00:00Z");
    await harness.models.Session.collection.insertMany(
      Array.from({ length: chats - 1 }, (_, i) => {
        const at = new Date(base + Math.floor(i / 4) * 60_000);
        return {
          _id: `pg${String(i).padStart(4, "0")}x${Math.floor(Math.random() * 1e6)}` as never,
          ownerId,
          title: `chat ${i + 1}`,
          seqReserved: 0,
          titleTerms: ["chat"],
          searchIndexed: true,
          createdAt: at,
          updatedAt: at,
        };
      }),
    );
    const list = await request(socket, "session:list", {});
    if (!list.ok) throw new Error(list.message);
    return { socket, ownerId, all: list.data };
  }

  it("returns every chat once, newest activity first, however the pages fall", async () => {
    const { socket } = await person(123);
    const seen: SessionSummary[] = [];
    let page: SessionPage | undefined;
    do {
      const ack = await request(socket, "session:page", page?.next ? { before: page.next, limit: 7 } : { limit: 7 });
      if (!ack.ok) throw new Error(ack.message);
      page = ack.data;
      seen.push(...page.sessions);
    } while (page.next);
    expect(seen).toHaveLength(123);
    expect(new Set(seen.map((s) => s.sessionId)).size).toBe(123);
    const order = [...seen].sort((a, b) =>
      a.updatedAt === b.updatedAt ? (a.sessionId < b.sessionId ? 1 : -1) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
    expect(seen.map((s) => s.sessionId)).toEqual(order.map((s) => s.sessionId));
  });

  it("sends the first page, not every chat, when one's list changes", async () => {
    const { socket, all } = await person(80);
    const pushed: SessionSummary[][] = [];
    socket.on("sessions:changed", (list) => pushed.push(list));
    const target = all.at(-1)!;
    const renamed = await request(socket, "session:rename", { sessionId: target.sessionId, title: "Renamed last" });
    expect(renamed.ok).toBe(true);
    await waitFor(() => pushed.length > 0, 5_000, "sessions:changed");
    expect(pushed[0]).toHaveLength(SESSION_PAGE_SIZE);
    // Renamed, it is the newest activity: first in the page.
    expect(pushed[0]![0]).toMatchObject({ sessionId: target.sessionId, title: "Renamed last" });
  });

  it("answers a cursor from someone else's list with one's own chats only", async () => {
    const a = await person(12);
    const b = await person(12);
    const theirs = await request(b.socket, "session:page", { limit: 5 });
    if (!theirs.ok || !theirs.data.next) throw new Error("expected a next cursor");
    const mine = await request(a.socket, "session:page", { before: theirs.data.next, limit: 50 });
    if (!mine.ok) throw new Error(mine.message);
    const bIds = new Set(b.all.map((s) => s.sessionId));
    expect(mine.data.sessions.length).toBeGreaterThan(0);
    expect(mine.data.sessions.some((s) => bIds.has(s.sessionId))).toBe(false);
  });
});
