import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openBenchDatabase, type BenchDatabase } from "./bench-database";
import { reportTables } from "./report-tables";
import { runSuite, type BenchReport } from "./suite";
import { renderMarkdown, renderText } from "./table";
import { SOCKET_IO_SCOPE, TURN_SCOPE, type TracingMode } from "./tracing-bench";

/**
 * The benchmarks at smoke size, so they cannot rot. Timings are never asserted (two shared
 * cores make them noise here); what is asserted is that every part ran for real and that
 * what it compares is comparable: both markup paths agree, every relayed event reached
 * every client, the stored history reads back exactly, the round trips of a reload do not
 * depend on the number of turns, and the clean context is smaller than the unfiltered one.
 */
describe("benchmarks (smoke mode)", () => {
  let db: BenchDatabase;
  let report: BenchReport;

  beforeAll(async () => {
    db = await openBenchDatabase({ baseUri: inject("mongoUri") });
    // The browser part always runs: on a fresh clone it first builds the app (minutes).
    report = await runSuite({ mode: "smoke", db, browser: true });
  }, 900_000);

  afterAll(async () => {
    await db?.close();
  });

  it("markup: the tree transforms and the naive baseline build identical markup", () => {
    const m = report.markup;
    expect(m.identical).toBe(true);
    expect(m.events).toBeGreaterThan(50);
    expect(m.nestedToolCalls).toBe(4);
    expect(m.fast.early.medianUs).toBeGreaterThan(0);
    expect(m.naive.late.medianUs).toBeGreaterThan(0);
    expect(m.atSize.map((s) => s.chars)).toEqual([1_000]);
    expect(m.atSize[0]!.actualChars).toBeGreaterThanOrEqual(1_000);
  });

  it("relay: every published event reaches every client, with a measured latency", () => {
    for (const r of report.relay) {
      const perSessionClients = r.clients / r.sessions;
      expect(r.burst.deliveries).toBe(r.burst.events * perSessionClients);
      expect(r.paced.deliveries).toBe(r.paced.events * perSessionClients);
      expect(r.burst.eventsPerSecond).toBeGreaterThan(0);
      expect(r.paced.latencyP50Ms).toBeGreaterThan(0);
      expect(r.paced.latencyP99Ms).toBeGreaterThanOrEqual(r.paced.latencyP50Ms);
    }
  });

  it("relay vs raw Socket.IO: both servers deliver every event to every viewer in the other process", () => {
    expect(report.relayCompare.length).toBeGreaterThan(0);
    for (const r of report.relayCompare) {
      for (const side of [r.raw, r.relay]) {
        expect(side.deliveries).toBe(r.events * r.clients);
        expect(side.latencyP99Ms).toBeGreaterThanOrEqual(side.latencyP50Ms);
        expect(side.cpuMsPer1000).toBeGreaterThan(0);
      }
    }
  });

  it("storage: a streamed turn writes at most twice what it stores, and reads back exactly", () => {
    const s = report.storage;
    expect(s.readBackExact).toBe(true);
    expect(s.storedBytes).toBeGreaterThan(s.subagents * s.tokensEach * 2);
    expect(s.writtenBytes).toBeLessThanOrEqual(2 * s.storedBytes);
  });

  it("reload: history reads back exactly, and its round trips do not grow with the turns", () => {
    const [small, large] = report.reload;
    for (const r of [small!, large!]) {
      expect(r.readBackExact).toBe(true);
      // The join holds the newest page; every turn is still there, page by page.
      expect(r.pagesExact).toBe(true);
      expect(r.bytes).toBeGreaterThan(0);
      expect(r.warmJoinMs).toBeGreaterThan(0);
    }
    expect(large!.turns).toBe(10 * small!.turns);
    expect(small!.queries).toBeGreaterThan(0);
    // Queries, not round trips: a real mongod answers a find with 101 documents and sends
    // the rest on getMore (one per collection per 16 MB), which grows with the data.
    expect(large!.queries).toBe(small!.queries);
  });

  it("context: the clean context carries no internals and is smaller than the unfiltered one", () => {
    const c = report.context;
    expect(c.clean).toBe(true);
    expect(c.turns).toBe(50);
    expect(c.messages).toBeGreaterThan(c.turns * 2);
    expect(c.naiveTokens).toBeGreaterThan(c.cleanTokens);
  });

  it("audit: model-call records are stored in less than they were sent, and an exported chat imports back exactly", () => {
    const a = report.audit!;
    expect(a.modelCalls.calls).toBeGreaterThan(2);
    expect(a.modelCalls.storedBytes).toBeGreaterThan(0);
    expect(a.modelCalls.storedBytes).toBeLessThan(a.modelCalls.sentBytes);
    expect(a.export.fileMb).toBeGreaterThan(0.5);
    expect(a.export.importExact).toBe(true);
  });

  it("browser: the newest turn of a stored session renders and the list scrolls", () => {
    const browser = report.browser;
    if ("skipped" in browser) throw new Error(`the browser part was skipped: ${browser.skipped}`);
    // The list renders the newest turns first and reveals older ones on scroll.
    expect(browser.renderedTurns).toBeGreaterThan(0);
    expect(browser.renderedTurns).toBeLessThanOrEqual(50);
    expect(browser.scrollable).toBe(true);
    expect(browser.renderedMs).toBeGreaterThan(0);
  });

  it("stream: Chromium showed five expanded panels streaming, with frames, keystrokes and heap measured", () => {
    const stream = report.stream;
    if ("skipped" in stream) throw new Error(`the stream part was skipped: ${stream.skipped}`);
    const [expanded] = stream;
    expect(expanded!.panels).toBe("expanded");
    expect(expanded!.tokens).toBe(3_000);
    // Some frames and some typing happened while the stream ran, and were measured.
    expect(expanded!.seconds).toBeGreaterThan(1);
    expect(expanded!.fpsMean).toBeGreaterThan(0);
    expect(expanded!.keystrokes).toBeGreaterThan(0);
    expect(expanded!.keyPaintP95Ms).toBeGreaterThan(0);
    expect(expanded!.domNodes).toBeGreaterThan(500);
    expect(expanded!.heapEndMb).toBeGreaterThan(0);
  });

  it("timeline: the trace timeline and the inspector opened on the stored session, and a live turn drawn whole", () => {
    const timeline = report.timeline;
    if (!timeline || "skipped" in timeline) throw new Error("the timeline part was skipped");
    expect(timeline.stored.timeline.opens).toBeGreaterThan(0);
    expect(timeline.stored.timeline.openMsMedian).toBeGreaterThan(0);
    expect(timeline.stored.inspector.openMsMedian).toBeGreaterThan(0);
    // The live turn's timeline drew every run and every call it made.
    expect(timeline.live.subagents).toBe(4);
    expect(timeline.live.toolCalls).toBe(20);
    expect(timeline.live.timelineRows).toBeGreaterThan(20);
  });

  /** One run with tracing off and one on, each in a process of its own. */
  const tracingRun = (mode: TracingMode) => {
    const run = report.tracing?.runs.find((r) => r.mode === mode);
    if (!run) throw new Error(`the tracing part has no run with tracing ${mode}`);
    return run;
  };

  it("tracing: traced, every turn exports its span tree; untraced, nothing is exported", () => {
    expect(tracingRun("off").spans).toEqual({});
    // master, general and two explores, each with model requests and tool calls.
    expect(tracingRun("on").spans[TURN_SCOPE]).toBeGreaterThanOrEqual(4 * 3);
  });

  it("tracing: it changes nothing a viewer receives, and adds no span per relayed event", () => {
    for (const { figures } of [tracingRun("off"), tracingRun("on")]) {
      const viewers = figures.relay.clients / figures.relay.sessions;
      expect(figures.relay.burst.deliveries).toBe(figures.relay.burst.events * viewers);
      expect(figures.relay.paced.deliveries).toBe(figures.relay.paced.events * viewers);
    }
    const on = tracingRun("on").figures;
    expect(on.turns.eventsPerTurn).toBe(tracingRun("off").figures.turns.eventsPerTurn);
    const relayed = on.relay.burst.deliveries + on.relay.paced.deliveries + on.turns.eventsPerTurn;
    expect(tracingRun("on").spans[SOCKET_IO_SCOPE]).toBeGreaterThan(0);
    expect(tracingRun("on").spans[SOCKET_IO_SCOPE]).toBeLessThan(relayed / 2);
  });

  it("the report renders as text and Markdown tables", () => {
    const tables = reportTables(report);
    expect(tables).toHaveLength(12);
    for (const table of tables) {
      expect(renderText(table)).toContain(table.headers[0]);
      expect(
        renderMarkdown(table)
          .split("\n")
          .filter((l) => l.startsWith("|")),
      ).toHaveLength(table.rows.length + 2);
    }
  });
});
