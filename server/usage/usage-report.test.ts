import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import { ACCOUNT_ROUTES, USAGE_ROUTE, type UsageFigures, type UsageReport } from "@/lib/contracts";
import { scriptedModel, systemOf } from "@/test/support/agent/scripted-model";
import { recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { createLoginThrottle } from "@/server/accounts/login-throttle";

/**
 * The usage report through the real server on the test database, accounts on: real turns
 * (a master delegating to a definition made in the app, which delegates to a built-in one;
 * a turn stopped by its budget), then every figure of GET /api/usage compared with sums of
 * the turn and run documents read straight from MongoDB, and who may read whose.
 */

const LEAD_PROMPT = "You lead a small review.";
const PRICING = { inputPerMTok: 3, outputPerMTok: 15 };

/** The master sends work to "lead" and to "explore"; lead sends work to "explore"; everyone then answers. */
const model = scriptedModel((req) => {
  const last = req.messages.at(-1);
  const fresh = last?.role === "user";
  const system = systemOf(req);
  if (system.startsWith(MASTER_PROMPT_MARKER)) {
    if (fresh && typeof last.content === "string" && last.content.includes("overspend"))
      // Crosses the turn's budget in its first response: the turn stops before its subagent runs.
      return {
        toolCalls: [{ id: "m-spend", name: "subagent", args: { agent: "explore", task: "read everything" } }],
        usage: { inputTokens: 900, outputTokens: 100 },
      };
    if (fresh)
      return {
        toolCalls: [
          { id: "m-lead", name: "subagent", args: { agent: "lead", task: "review the plan" } },
          { id: "m-explore", name: "subagent", args: { agent: "explore", task: "list the files" } },
        ],
        usage: { inputTokens: 300, outputTokens: 30 },
      };
    return { text: "All done.", usage: { inputTokens: 500, outputTokens: 40 } };
  }
  if (system.includes(LEAD_PROMPT)) {
    if (fresh)
      return {
        toolCalls: [{ id: "l-explore", name: "subagent", args: { agent: "explore", task: "read one file" } }],
        usage: { inputTokens: 120, outputTokens: 12 },
      };
    return { text: "The plan holds.", usage: { inputTokens: 150, outputTokens: 15 } };
  }
  return { text: "Nothing odd.", usage: { inputTokens: 70, outputTokens: 7 } };
});

let harness: Harness;
const PASSWORD = "correct horse battery";
const browser = () => new CookieJar(harness.baseUrl);

async function signUp(email: string): Promise<{ jar: CookieJar; id: string }> {
  const jar = browser();
  const res = await jar.post(ACCOUNT_ROUTES.signUp, { email, password: PASSWORD });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const state = await jar.get<{ account: { id: string } }>(ACCOUNT_ROUTES.state);
  return { jar, id: state.body.account.id };
}

async function runTurn(jar: CookieJar, text: string, budget?: { tokens: number }): Promise<void> {
  const socket = await harness.client(jar.header);
  const created = await request(socket, "session:create", {});
  if (!created.ok) throw new Error(created.message);
  const { sessionId } = created.data;
  await request(socket, "session:join", { sessionId });
  const events = recordEvents(socket);
  const sent = await request(socket, "turn:send", { sessionId, text, ...(budget ? { budget } : {}) });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 20_000, "the turn's end");
  // What the chat showed is stored before the report reads it.
  await (await harness.app.registry.peek(sessionId))?.drain();
  socket.disconnect();
}

// ── The stored documents, summed here on their own ───────────────────────────────────
type Stats = {
  chat?: { inputTokens?: number; outputTokens?: number };
  system?: { inputTokens?: number; outputTokens?: number };
  cost?: number;
};
type TurnDoc = { _id: string; sessionId: string; model?: string; endReason?: string; stats: Stats };
type RunDoc = TurnDoc & { turnId: string; parentRunId: string | null; name: string; definitionId?: string; definitionVersion?: number };
const tokensOf = (s: Stats) =>
  (s.chat?.inputTokens ?? 0) + (s.chat?.outputTokens ?? 0) + (s.system?.inputTokens ?? 0) + (s.system?.outputTokens ?? 0);
const sum = <T>(items: readonly T[], of: (t: T) => number) => items.reduce((n, t) => n + of(t), 0);

async function storedOf(ownerId: string): Promise<{ turns: TurnDoc[]; runs: RunDoc[] }> {
  const sessions = await harness.models.Session.find({ ownerId }).lean<{ _id: string }[]>();
  const ids = sessions.map((s) => s._id);
  const turns = await harness.models.Turn.find({ sessionId: { $in: ids } }).lean<TurnDoc[]>();
  const runs = await harness.models.SubagentRun.find({ sessionId: { $in: ids } }).lean<RunDoc[]>();
  return { turns, runs };
}

/** An agent's own spend: its stored figure minus its direct children's (the master's: the turn's minus its top-level runs'). */
function ownTokens(turns: TurnDoc[], runs: RunDoc[], who: { turn: TurnDoc } | { run: RunDoc }): number {
  if ("turn" in who)
    return (
      tokensOf(who.turn.stats) -
      sum(
        runs.filter((r) => r.turnId === who.turn._id && !r.parentRunId),
        (r) => tokensOf(r.stats),
      )
    );
  return (
    tokensOf(who.run.stats) -
    sum(
      runs.filter((r) => r.parentRunId === who.run._id),
      (r) => tokensOf(r.stats),
    )
  );
}
function ownCost(runs: RunDoc[], who: { turn: TurnDoc } | { run: RunDoc }): number {
  if ("turn" in who)
    return (
      (who.turn.stats.cost ?? 0) -
      sum(
        runs.filter((r) => r.turnId === who.turn._id && !r.parentRunId),
        (r) => r.stats.cost ?? 0,
      )
    );
  return (
    (who.run.stats.cost ?? 0) -
    sum(
      runs.filter((r) => r.parentRunId === who.run._id),
      (r) => r.stats.cost ?? 0,
    )
  );
}

const figures = (row: UsageFigures | undefined) =>
  row && { tokens: row.tokens, costUsd: row.costUsd, turns: row.turns, runs: row.runs, budgetStops: row.budgetStops };
const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 9);

let admin: { jar: CookieJar; id: string };
let ann: { jar: CookieJar; id: string };
let bob: { jar: CookieJar; id: string };
let leadId: string;

beforeAll(async () => {
  harness = await startHarness("usage-report", {
    runner: runtimeWith(model, { pricing: PRICING }),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
  });
  admin = await signUp("admin@example.com");
  ann = await signUp("ann@example.com");
  bob = await signUp("bob@example.com");
  const socket = await harness.client(ann.jar.header);
  const made = await request(socket, "agent:create", {
    definition: { name: "lead", description: "Leads a small review", systemPrompt: LEAD_PROMPT, allowedTools: ["subagent"] },
  });
  if (!made.ok) throw new Error(made.message);
  leadId = made.data.id!;
  socket.disconnect();
  await runTurn(ann.jar, "Review the plan");
  await runTurn(ann.jar, "Review it again");
  await runTurn(ann.jar, "Please overspend", { tokens: 500 });
  await runTurn(bob.jar, "Review my plan");
}, 120_000);
afterAll(async () => {
  await harness?.close();
});

describe("GET /api/usage", () => {
  it("adds up to the stored turns and runs: totals, per day, per model and per definition", async () => {
    const res = await ann.jar.get<UsageReport>(USAGE_ROUTE);
    expect(res.status).toBe(200);
    const report = res.body;
    const { turns, runs } = await storedOf(ann.id);
    expect(turns).toHaveLength(3);
    expect(runs.some((r) => r.parentRunId)).toBe(true);

    expect(report).toMatchObject({ person: ann.id, canSeeEveryone: false });
    expect(report.people).toBeUndefined();
    expect(report.days).toHaveLength(30);
    expect(figures(report.totals)).toEqual({
      tokens: sum(turns, (t) => tokensOf(t.stats)),
      costUsd: expect.any(Number),
      turns: 3,
      runs: runs.length,
      budgetStops:
        turns.filter((t) => t.endReason === "budget_exceeded").length + runs.filter((r) => r.endReason === "budget_exceeded").length,
    });
    close(
      report.totals.costUsd,
      sum(turns, (t) => t.stats.cost ?? 0),
    );
    expect(report.totals.costUsd).toBeGreaterThan(0);
    expect(report.totals.budgetStops).toBeGreaterThanOrEqual(1);

    // Today holds everything; every other day is zero.
    const today = new Date().toISOString().slice(0, 10);
    expect(figures(report.days.at(-1))).toEqual(figures(report.totals));
    expect(report.days.at(-1)!.day).toBe(today);
    expect(sum(report.days.slice(0, -1), (d) => d.tokens)).toBe(0);

    // Per model: the master's turns on their model, each run on its own.
    for (const row of report.models) {
      const own = [
        ...turns.filter((t) => (t.model || "Unknown model") === row.model).map((turn) => ({ turn })),
        ...runs.filter((r) => (r.model || "Unknown model") === row.model).map((run) => ({ run })),
      ];
      expect(row.tokens).toBe(sum(own, (who) => ownTokens(turns, runs, who)));
      close(
        row.costUsd,
        sum(own, (who) => ownCost(runs, who)),
      );
    }
    expect(sum(report.models, (m) => m.tokens)).toBe(report.totals.tokens);

    // Per definition: the master, the app-made one at its version, the built-in by name.
    const master = report.definitions.find((d) => d.key === "master")!;
    expect(master).toMatchObject({ label: "Master agent", turns: 3, runs: 0 });
    expect(master.tokens).toBe(sum(turns, (turn) => ownTokens(turns, runs, { turn })));
    const leadRuns = runs.filter((r) => r.definitionId === leadId);
    const lead = report.definitions.find((d) => d.key === `app:${leadId}:1`)!;
    expect(lead).toMatchObject({ label: "lead (v1)", runs: leadRuns.length, turns: 0 });
    expect(lead.tokens).toBe(sum(leadRuns, (run) => ownTokens(turns, runs, { run })));
    close(
      lead.costUsd,
      sum(leadRuns, (run) => ownCost(runs, { run })),
    );
    const exploreRuns = runs.filter((r) => !r.definitionId && r.name === "explore");
    const explore = report.definitions.find((d) => d.key === "operator:explore")!;
    expect(explore).toMatchObject({ label: "explore", runs: exploreRuns.length });
    expect(explore.tokens).toBe(sum(exploreRuns, (run) => ownTokens(turns, runs, { run })));
    expect(sum(report.definitions, (d) => d.tokens)).toBe(report.totals.tokens);
    expect(sum(report.definitions, (d) => d.runs)).toBe(runs.length);
  });

  it("shows an admin everyone's, per person, and one person's when asked", async () => {
    const everyone = await admin.jar.get<UsageReport>(USAGE_ROUTE);
    expect(everyone.status).toBe(200);
    expect(everyone.body).toMatchObject({ person: null, canSeeEveryone: true });
    const annOwn = (await ann.jar.get<UsageReport>(USAGE_ROUTE)).body;
    const people = everyone.body.people!;
    expect(people.map((p) => p.label).sort()).toEqual(["ann (ann@example.com)", "bob (bob@example.com)"]);
    expect(figures(people.find((p) => p.personId === ann.id))).toEqual(figures(annOwn.totals));
    const bobStored = await storedOf(bob.id);
    expect(people.find((p) => p.personId === bob.id)!.tokens).toBe(sum(bobStored.turns, (t) => tokensOf(t.stats)));
    expect(everyone.body.totals.tokens).toBe(sum(people, (p) => p.tokens));

    const one = await admin.jar.get<UsageReport>(`${USAGE_ROUTE}?person=${bob.id}`);
    expect(one.body).toMatchObject({ person: bob.id, canSeeEveryone: true });
    expect(one.body.totals.tokens).toBe(sum(bobStored.turns, (t) => tokensOf(t.stats)));
  });

  it("refuses another person's usage to anyone but an admin", async () => {
    for (const [asker, other] of [
      [ann, bob],
      [bob, ann],
    ] as const) {
      const res = await asker.jar.get<{ error: { code: string } }>(`${USAGE_ROUTE}?person=${other.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    // Naming oneself is the same as naming no one.
    const own = await bob.jar.get<UsageReport>(`${USAGE_ROUTE}?person=${bob.id}`);
    expect(own.body.person).toBe(bob.id);
    expect((await browser().get(USAGE_ROUTE)).status).toBe(401);
  });

  it("checks its range", async () => {
    const to = new Date().toISOString().slice(0, 10);
    const oneDay = await ann.jar.get<UsageReport>(`${USAGE_ROUTE}?from=${to}&to=${to}`);
    expect(oneDay.body.days.map((d) => d.day)).toEqual([to]);
    expect(oneDay.body.totals.turns).toBe(3);
    const past = await ann.jar.get<UsageReport>(`${USAGE_ROUTE}?from=2020-01-01&to=2020-01-31`);
    expect(past.body.totals).toMatchObject({ tokens: 0, turns: 0 });
    for (const query of ["from=2020-01-01&to=2021-06-01", "from=2020-02-30", "to=yesterday", "from=2020-02-02&to=2020-02-01"]) {
      const res = await ann.jar.get<{ error: { code: string } }>(`${USAGE_ROUTE}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe("bad_request");
    }
  });
});
