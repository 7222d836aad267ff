import { describe, expect, it } from "vitest";
import type { UsageFigures } from "@/lib/contracts/usage";
import { daysBetween, ownSpend, spendOf, summarizeUsage, type UsageRunRow, type UsageTurnRow } from "./usage-summary";

const stats = (input: number, output: number, cost = 0, system: [number, number] = [0, 0]) => ({
  chat: { inputTokens: input, outputTokens: output },
  system: { inputTokens: system[0], outputTokens: system[1] },
  cost,
});

const turn = (id: string, over: Partial<UsageTurnRow> = {}): UsageTurnRow => ({
  _id: id,
  sessionId: "s1",
  createdAt: new Date("2026-03-02T10:00:00Z"),
  model: "big",
  ...over,
});

const run = (id: string, turnId: string, over: Partial<UsageRunRow> = {}): UsageRunRow => ({
  _id: id,
  turnId,
  parentRunId: null,
  name: "researcher",
  model: "small",
  ...over,
});

const base = { from: "2026-03-01", to: "2026-03-03", person: "p1", canSeeEveryone: false, ownerOf: new Map([["s1", "p1"]]) };

/** Only the figures a case names. */
const pick = (row: UsageFigures | undefined, keys: readonly (keyof UsageFigures)[]) => Object.fromEntries(keys.map((k) => [k, row?.[k]]));

describe("ownSpend", () => {
  it.each([
    { name: "no children: all of it", whole: stats(10, 5, 1), children: [], want: stats(10, 5, 1) },
    {
      name: "children's spend comes off",
      whole: stats(10, 5, 1),
      children: [stats(4, 1, 0.25), stats(1, 1, 0.25)],
      want: stats(5, 3, 0.5),
    },
    { name: "never below zero", whole: stats(1, 1, 0), children: [stats(4, 0, 1)], want: stats(0, 1, 0) },
    { name: "system tokens too", whole: stats(0, 0, 0, [8, 2]), children: [stats(0, 0, 0, [3, 2])], want: stats(0, 0, 0, [5, 0]) },
  ])("$name", ({ whole, children, want }) => {
    expect(ownSpend(spendOf(whole), children.map(spendOf))).toEqual(spendOf(want));
  });

  it("reads missing stats as zeros", () => {
    expect(spendOf(undefined)).toEqual(spendOf(stats(0, 0)));
  });
});

describe("daysBetween", () => {
  it.each([
    { from: "2026-03-01", to: "2026-03-01", want: ["2026-03-01"] },
    { from: "2026-02-27", to: "2026-03-01", want: ["2026-02-27", "2026-02-28", "2026-03-01"] },
    { from: "2026-03-02", to: "2026-03-01", want: [] },
  ])("$from to $to", ({ from, to, want }) => {
    expect(daysBetween(from, to)).toEqual(want);
  });
});

describe("summarizeUsage", () => {
  it.each([
    {
      name: "nothing used: zeros, every day listed",
      turns: [],
      runs: [],
      want: { totals: { tokens: 0, turns: 0, runs: 0 }, days: 3, models: {}, definitions: {} },
    },
    {
      name: "a turn alone is the master's, on its model and day",
      turns: [turn("t1", { stats: stats(100, 20, 0.5, [5, 1]), endReason: "completed" })],
      runs: [],
      want: {
        totals: { tokens: 126, costUsd: 0.5, turns: 1, runs: 0, budgetStops: 0 },
        days: 3,
        models: { big: { tokens: 126, turns: 1 } },
        definitions: { master: { tokens: 126, costUsd: 0.5, turns: 1 } },
      },
    },
    {
      name: "nested runs: each agent is credited its own spend and the rows add up to the turn",
      turns: [turn("t1", { stats: stats(100, 50, 1) })],
      runs: [
        run("r1", "t1", { stats: stats(60, 30, 0.6), definitionId: "d1", definitionVersion: 2 }),
        run("r2", "t1", { parentRunId: "r1", stats: stats(20, 10, 0.2), model: "tiny", name: "checker" }),
      ],
      want: {
        totals: { tokens: 150, costUsd: 1, turns: 1, runs: 2 },
        days: 3,
        models: { big: { tokens: 60, costUsd: 0.4 }, small: { tokens: 60, costUsd: 0.4 }, tiny: { tokens: 30, costUsd: 0.2 } },
        definitions: {
          master: { tokens: 60, turns: 1, runs: 0 },
          "app:d1:2": { tokens: 60, runs: 1 },
          "operator:checker": { tokens: 30, runs: 1 },
        },
      },
    },
    {
      name: "records from before models were kept count under Unknown model",
      turns: [turn("t1", { model: undefined, stats: stats(10, 0) })],
      runs: [run("r1", "t1", { model: undefined, stats: stats(4, 0) })],
      want: {
        totals: { tokens: 10 },
        days: 3,
        models: { "Unknown model": { tokens: 10, turns: 1, runs: 1 } },
        definitions: { master: { tokens: 6 }, "operator:researcher": { tokens: 4 } },
      },
    },
    {
      name: "budget stops are counted for the turn and the run that stopped",
      turns: [turn("t1", { endReason: "budget_exceeded", stats: stats(1, 1) }), turn("t2", { endReason: "completed" })],
      runs: [run("r1", "t1", { endReason: "budget_exceeded" }), run("r2", "t2", { endReason: "failed" })],
      want: {
        totals: { budgetStops: 2, turns: 2, runs: 2 },
        days: 3,
        models: { big: { budgetStops: 1 }, small: { budgetStops: 1 } },
        definitions: { master: { budgetStops: 1 }, "operator:researcher": { budgetStops: 1, runs: 2 } },
      },
    },
  ])("$name", ({ turns, runs, want }) => {
    const report = summarizeUsage({ ...base, turns, runs });
    expect(pick(report.totals, Object.keys(want.totals) as (keyof UsageFigures)[])).toEqual(want.totals);
    expect(report.days).toHaveLength(want.days);
    expect(report.models.map((m) => m.model).sort()).toEqual(Object.keys(want.models).sort());
    for (const [model, figures] of Object.entries(want.models))
      expect(
        pick(
          report.models.find((m) => m.model === model),
          Object.keys(figures) as (keyof UsageFigures)[],
        ),
      ).toEqual(figures);
    expect(report.definitions.map((d) => d.key).sort()).toEqual(Object.keys(want.definitions).sort());
    for (const [key, figures] of Object.entries(want.definitions))
      expect(
        pick(
          report.definitions.find((d) => d.key === key),
          Object.keys(figures) as (keyof UsageFigures)[],
        ),
      ).toEqual(figures);
    // However it is cut, the report adds up to its totals.
    for (const rows of [report.days, report.models, report.definitions])
      for (const key of ["tokens", "turns", "runs", "budgetStops"] as const)
        expect(rows.reduce((sum, r) => sum + r[key], 0)).toBe(report.totals[key]);
  });

  it("counts a run on its turn's day, and each day adds up", () => {
    const report = summarizeUsage({
      ...base,
      turns: [
        turn("t1", { createdAt: new Date("2026-03-01T23:59:59Z"), stats: stats(10, 0, 0.1) }),
        turn("t2", { createdAt: new Date("2026-03-03T00:00:00Z"), stats: stats(5, 5, 0.2) }),
      ],
      runs: [run("r1", "t1", { stats: stats(4, 0, 0.05) })],
    });
    expect(report.days.map((d) => [d.day, d.tokens, d.costUsd, d.turns, d.runs])).toEqual([
      ["2026-03-01", 10, 0.1, 1, 1],
      ["2026-03-02", 0, 0, 0, 0],
      ["2026-03-03", 10, 0.2, 1, 0],
    ]);
  });

  it("names app-made definitions by their stored name and version", () => {
    const report = summarizeUsage({
      ...base,
      turns: [turn("t1")],
      runs: [run("r1", "t1", { name: "rev", definitionId: "d1", definitionVersion: 3 })],
      definitionNames: new Map([["d1:3", "reviewer"]]),
    });
    expect(report.definitions.map((d) => d.label).sort()).toEqual(["Master agent", "reviewer (v3)"]);
  });

  it("has a row per person only when labels are given, each person's own", () => {
    const input = {
      ...base,
      person: null,
      canSeeEveryone: true,
      ownerOf: new Map([
        ["s1", "p1"],
        ["s2", "p2"],
      ]),
      turns: [turn("t1", { stats: stats(10, 0, 1) }), turn("t2", { sessionId: "s2", stats: stats(3, 0, 2) })],
      runs: [],
    };
    expect(summarizeUsage(input).people).toBeUndefined();
    const people = summarizeUsage({ ...input, personLabels: new Map([["p1", "Ann"]]) }).people;
    expect(people?.map((p) => [p.personId, p.label, p.tokens, p.costUsd, p.turns])).toEqual([
      ["p1", "Ann", 10, 1, 1],
      ["p2", "p2", 3, 2, 1],
    ]);
  });

  it("keeps costs free of float drift", () => {
    const turns = Array.from({ length: 10 }, (_, i) => turn(`t${i}`, { stats: stats(1, 0, 0.1) }));
    expect(summarizeUsage({ ...base, turns, runs: [] }).totals.costUsd).toBe(1);
  });
});
