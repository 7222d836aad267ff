import { tracingTables } from "./tracing-bench";
import type { BenchReport } from "./suite";
import { fmt, type Table } from "./table";
import type { AuditResult } from "./audit-bench";
import type { SearchBenchResult } from "./search-bench";

/** The report as its tables (browser reload figures join the reload table; the timeline table when it ran). */
export function reportTables(report: BenchReport): Table[] {
  return [
    markupTable(report),
    relayTable(report),
    relayCompareTable(report),
    ...(report.tracing ? tracingTables(report.tracing) : []),
    storageTable(report),
    reloadTable(report),
    contextTable(report),
    ...(report.audit ? [auditTable(report.audit)] : []),
    ...(report.search ? [searchTable(report.search)] : []),
    streamTable(report),
    ...(report.timeline ? [timelineTable(report.timeline)] : []),
  ];
}

function relayCompareTable({ relayCompare }: BenchReport): Table {
  const rows = (relayCompare ?? []).flatMap((r) =>
    (["raw", "relay"] as const).map((side) => {
      const p = r[side];
      return [
        side === "raw" ? r.label : "",
        side === "raw" ? "raw Socket.IO" : "relay (DroneSession)",
        fmt(p.eventsPerSecond),
        fmt(p.deliveriesPerSecond),
        fmt(p.latencyP50Ms, 2),
        fmt(p.latencyP99Ms, 2),
        fmt(p.cpuMsPer1000, 0),
      ];
    }),
  );
  return {
    title: "2b. Relay against raw Socket.IO, same run, viewers in another process",
    headers: ["case", "server", "events/s", "deliveries/s", "p50 ms", "p99 ms", "CPU ms / 1,000 events"],
    rows,
    note: "Publish → arrival in the viewers' process (clocks matched over IPC). Raw: a bare Socket.IO server emitting the same events to a room at the same pace. CPU: the server process (the database runs apart).",
  };
}

function auditTable(a: AuditResult): Table {
  const m = a.modelCalls;
  const e = a.export;
  return {
    title: "4b. Audit: model-call records, export and import",
    headers: ["what", "figure"],
    rows: [
      [
        `Model-call records, ${m.turns} demo turns (${m.calls} requests)`,
        `${fmt(m.storedPerTurnKiB, 1)} KiB per turn stored; ${fmt(m.storedBytes / 1024, 0)} KiB for ${fmt(m.sentBytes / 1024, 0)} KiB sent (${fmt(m.storedBytes / m.sentBytes, 2)}×); the chat itself ${fmt(m.chatBytes / 1024, 0)} KiB`,
      ],
      [
        `Export, ${fmt(e.fileMb, 1)} MB session file (${fmt(e.turns)} turns)`,
        `${fmt(e.seconds, 1)} s; heap +${fmt(e.peakHeapMb, 0)} MB at the peak over the loaded chat`,
      ],
      [`Import of that file`, `${fmt(e.importSeconds, 1)} s; reads back as exported: ${e.importExact ? "yes" : "NO"}`],
    ],
    note: "Stored: BSON of the session's ModelCall and ModelBlob documents (each message once per chat). Sent: every request and reply as JSON, as if each were kept whole.",
  };
}

function searchTable(s: SearchBenchResult): Table {
  const b = s.browser;
  return {
    title: "4c. Search and the sidebar with many chats",
    headers: ["what", "figure"],
    rows: [
      [
        `session:search, ${fmt(s.queries)} queries over ${fmt(s.chats)} chats / ${fmt(s.turns)} turns (~${fmt(s.wordsPerTurn)} words each)`,
        `p50 ${fmt(s.searchP50Ms, 1)} ms, p99 ${fmt(s.searchP99Ms, 1)} ms, max ${fmt(s.searchMaxMs, 0)} ms; ${fmt(s.hitsMean, 1)} results per query`,
      ],
      [`session:page (${fmt(50)} chats), p50 over 40 pages`, `${fmt(s.pageP50Ms, 1)} ms`],
      [
        `Sidebar in Chromium: first page / scrolled to the bottom`,
        !b
          ? "not run"
          : "skipped" in b
            ? `skipped (${b.skipped})`
            : `${fmt(b.firstPageMs)} ms / ${fmt(b.scrollToBottomMs)} ms (${fmt(b.chatsRendered)} chats; longest task ${fmt(b.longestTaskMs)} ms)`,
      ],
    ],
    note: `Seeded in ${fmt(s.seedS, 1)} s. Queries mix a word being typed, a whole word and a prefix, and two whole words; half with subagents' results. First page: navigation start until ${fmt(50)} chats are in the DOM. The test database server (mongo-java-server) keeps unique indexes only, so there every search scans the owner's collection; MongoDB answers the same queries from the {ownerId, terms} multikey index.`,
  };
}

function storageTable({ storage: s }: BenchReport): Table {
  return {
    title: "2c. Bytes written to MongoDB for one streamed turn",
    headers: ["turn", "seconds", "written", "stored", "written ÷ stored"],
    rows: s
      ? [
          [
            `${s.subagents} subagents × ${fmt(s.tokensEach)} tokens thought + answered, ${fmt(s.tokensPerSecond)} tokens/s`,
            fmt(s.seconds, 1),
            `${fmt(s.writtenBytes / 1024, 0)} KiB`,
            `${fmt(s.storedBytes / 1024, 0)} KiB`,
            `${fmt(s.ratio, 2)}×`,
          ],
        ]
      : [],
    note: `The real runtime and OpenAI adapter over HTTP to a scripted model server streaming at a set rate. Written: BSON of every inserted document and every update's filter and update (command monitoring). Reads back exactly: ${s?.readBackExact ? "yes" : "NO"}.`,
  };
}

function timelineTable(timeline: NonNullable<BenchReport["timeline"]>): Table {
  if ("skipped" in timeline)
    return {
      title: "6. Trace timeline and context inspector in Chromium",
      headers: ["view"],
      rows: [],
      note: `Skipped (${timeline.skipped}).`,
    };
  const { stored, live } = timeline;
  const open = (what: string, f: typeof stored.timeline) => [
    what,
    fmt(f.opens),
    fmt(f.openMsMedian),
    fmt(f.openMsMax),
    fmt(f.longTasks),
    fmt(f.longestTaskMs),
  ];
  return {
    title: "6. Trace timeline and context inspector in Chromium (1280×800 stored, 1440×900 live)",
    headers: ["view", "opens", "open ms p50", "max", "long tasks", "longest ms"],
    rows: [
      open("timeline, stored 500-turn session", stored.timeline),
      open("inspector (master), stored session", stored.inspector),
      open(`timeline, finished ${fmt(live.subagents)}-subagent turn`, live.reopen),
      open(`inspector (master), that turn`, live.inspector),
      [
        `live: ${fmt(live.subagents)} subagents / ${fmt(live.toolCalls)} calls, timeline open`,
        `${fmt(live.open.seconds, 1)} s`,
        "",
        "",
        `${fmt(live.open.longTasks)}${live.open.cpuLongTasks !== undefined ? ` (${fmt(live.open.cpuLongTasks)} by CPU)` : ""}`,
        fmt(live.open.longestTaskMs),
      ],
      [
        `live: the same turn, timeline closed`,
        `${fmt(live.closed.seconds, 1)} s`,
        "",
        "",
        `${fmt(live.closed.longTasks)}${live.closed.cpuLongTasks !== undefined ? ` (${fmt(live.closed.cpuLongTasks)} by CPU)` : ""}`,
        fmt(live.closed.longestTaskMs),
      ],
    ],
    note:
      `Open = click → the view drawn (the frame after it painted), page clock. Long tasks (> 50 ms, PerformanceObserver) in that span; live: from the timeline opened at the turn's start to its end ` +
      `(${fmt(live.timelineRows)} rows; ${fmt(live.open.longTaskTotalMs)} ms of long tasks in all, against ${fmt(live.closed.longTaskTotalMs)} ms with the timeline closed; the whole page, collapsed panels included). Stored-session inspector records: ${stored.inspectorRecords}.`,
  };
}

function streamTable({ stream }: BenchReport): Table {
  const runs = "skipped" in stream ? [] : stream;
  return {
    title: "5. Streaming in Chromium: five subagents, markdown, 1440×900",
    headers: [
      "panels",
      "tokens",
      "s",
      "long tasks",
      "total ms",
      "longest ms",
      "fps mean",
      "fps worst s",
      "key→paint p50",
      "p95",
      "DOM nodes",
      "panel nodes max",
      "heap MB start → end",
    ],
    rows: runs.map((r) => [
      r.panels,
      fmt(r.tokens),
      fmt(r.seconds, 1),
      fmt(r.longTasks),
      fmt(r.longTaskTotalMs),
      fmt(r.longestTaskMs),
      fmt(r.fpsMean),
      fmt(r.fpsWorstSecond),
      fmt(r.keyPaintP50Ms),
      fmt(r.keyPaintP95Ms),
      fmt(r.domNodes),
      fmt(r.panelNodesMax),
      `${fmt(r.heapStartMb, 1)} → ${fmt(r.heapEndMb, 1)}`,
    ]),
    note:
      "skipped" in stream
        ? `Skipped (${stream.skipped}).`
        : "Production build on the real OpenAI HTTP adapter and a scripted OpenAI-compatible server streaming markdown (lists, tables, code) at the set total rate; " +
          "a keystroke into the composer every 200 ms. Long tasks from PerformanceObserver, frames from requestAnimationFrame, key→paint = keydown to the frame after it, heap after forced GC.",
  };
}

function markupTable({ markup: m }: BenchReport): Table {
  const sizes = m.atSize.map((s) => s.chars);
  const at = (pick: (s: (typeof m.atSize)[number]) => number, digits: number) =>
    sizes.map((chars) => fmt(pick(m.atSize.find((s) => s.chars === chars)!), digits));
  const sizeHeader = (chars: number) => `µs/event @${chars >= 1000 ? `${chars / 1000}K` : chars} chars`;
  return {
    title: "1. Folding one event into a turn (µs per event)",
    headers: ["path", "early p50", "early p99", "late p50", "late p99", "total ms", ...sizes.map(sizeHeader)],
    rows: [
      [
        "turn reducer (applyEvent)",
        fmt(m.fast.early.medianUs, 2),
        fmt(m.fast.early.p99Us, 2),
        fmt(m.fast.late.medianUs, 2),
        fmt(m.fast.late.p99Us, 2),
        fmt(m.fast.totalMs, 1),
        ...at((s) => s.fastMedianUs, 2),
      ],
      [
        "naive: parse + serialise all",
        fmt(m.naive.early.medianUs, 1),
        fmt(m.naive.early.p99Us, 1),
        fmt(m.naive.late.medianUs, 1),
        fmt(m.naive.late.p99Us, 1),
        fmt(m.naive.totalMs, 1),
        ...at((s) => s.naiveMedianUs, 1),
      ],
      [
        "naive ÷ reducer",
        `${fmt(m.ratio.early, 0)}×`,
        "",
        `${fmt(m.ratio.late, 0)}×`,
        "",
        `${fmt(m.ratio.total, 0)}×`,
        ...at((s) => s.ratio, 0).map((r) => `${r}×`),
      ],
      ["serializeTurn once (µs)", "", "", "", "", "", ...at((s) => s.serializeUs, 1)],
    ],
    note:
      `${fmt(m.events)} events (${m.subagents} parallel subagents, ${fmt(m.responseTokens)} response tokens, ${m.nestedToolCalls} nested tool calls); ` +
      `final markup ${fmt(m.finalChars)} chars; early/late = first/last 10% of events. ` +
      `Whole final message: serialize ${fmt(m.serializeFinalUs, 0)} µs, parse ${fmt(m.parseFinalUs, 0)} µs. Identical markup: ${m.identical ? "yes" : "NO"}.`,
  };
}

function relayTable({ relay }: BenchReport): Table {
  return {
    title: "2. Relay: runtime → DroneSession → Socket.IO → socket.io-client (loopback)",
    headers: ["case", "burst events", "events/s", "deliveries/s", "paced rate/session", "p50 ms", "p99 ms"],
    rows: relay.map((r) => [
      r.label,
      fmt(r.burst.events),
      fmt(r.burst.eventsPerSecond),
      fmt(r.burst.deliveriesPerSecond),
      `${fmt(r.paced.ratePerSession)}/s`,
      fmt(r.paced.latencyP50Ms, 2),
      fmt(r.paced.latencyP99Ms, 2),
    ]),
    note:
      "Throughput from a burst turn (published as fast as accepted; deliveries = events × clients); latency (publish → client handler) " +
      "from a separate paced turn. Clients share the process and the cores with the server.",
  };
}

function reloadTable({ reload, browser }: BenchReport): Table {
  const rendered = "skipped" in browser ? undefined : browser;
  const rows = reload.map((r) => {
    const isBrowserSize = rendered && rendered.turns === r.turns;
    return [
      `${fmt(r.turns)} turns / ${r.subagents} subagents / ${fmt(r.nestedToolCalls)} calls`,
      `${fmt(r.bytes / 1024, 0)} KiB`,
      fmt(r.coldJoinMs, 0),
      fmt(r.warmJoinMs, 0),
      `${r.roundTrips} (${r.queries} queries)`,
      isBrowserSize ? `${fmt(rendered.firstRenderedMs)} / ${fmt(rendered.renderedMs)}` : "–",
    ];
  });
  return {
    title: "3. Reload a stored session (ms)",
    headers: ["session", "snapshot JSON", "session:join cold", "session:join warm", "DB round trips", "Chromium first / warm"],
    rows,
    note:
      `session:join on a fresh socket with the owner's cookie (cold = first join, opens the session; warm = median of 5). Round trips: database commands one warm join sends. ` +
      (rendered
        ? `Chromium: navigation start → last turn in the DOM and the list scrolled to the bottom (${rendered.renderedTurns} turns rendered; HTML ttfb ${fmt(rendered.htmlTtfbMs, 0)} ms, DOMContentLoaded ${fmt(rendered.domContentLoadedMs, 0)} ms).`
        : `Chromium skipped (${"skipped" in browser ? browser.skipped : ""}).`),
  };
}

function contextTable({ context: c }: BenchReport): Table {
  return {
    title: "4. Context building (historical replay)",
    headers: ["turns", "messages", "loadHistory ms", "buildSessionContext ms", "tokens (clean)", "tokens (full process JSON)", "saved"],
    rows: [
      [
        fmt(c.turns),
        fmt(c.messages),
        fmt(c.loadHistoryMs, 0),
        fmt(c.buildMs, 2),
        fmt(c.cleanTokens),
        fmt(c.naiveTokens),
        `${fmt(c.ratio, 1)}× fewer`,
      ],
    ],
    note: `Tokens by estimateMessagesTokens; the comparison puts each subagent's whole process JSON in its tool message. Clean context carries no internals: ${c.clean ? "yes" : "NO"}.`,
  };
}

/** The headline figures in one short table (README's Performance section). */
export function summaryTable(report: BenchReport): Table {
  const { markup: m, relay, reload, context: c, browser } = report;
  const size = (chars: number) => m.atSize.find((s) => s.chars === chars);
  const small = size(1_000);
  const large = size(100_000);
  const big = reload.at(-1)!;
  const rows: string[][] = [
    [
      `Fold, µs/event p50 (early → late in the stream)`,
      `reducer ${fmt(m.fast.early.medianUs, 2)} → ${fmt(m.fast.late.medianUs, 2)}; naive ${fmt(m.naive.early.medianUs, 0)} → ${fmt(m.naive.late.medianUs, 0)}`,
    ],
    [
      `Fold, µs/event p50 at 1K / 100K chars of content`,
      `reducer ${fmt(small?.fastMedianUs, 2)} / ${fmt(large?.fastMedianUs, 2)}; naive ${fmt(small?.naiveMedianUs, 0)} / ${fmt(large?.naiveMedianUs, 0)}`,
    ],
    [
      `Fold, whole stream (${fmt(m.events)} events)`,
      `reducer ${fmt(m.fast.totalMs, 0)} ms; naive ${fmt(m.naive.totalMs, 0)} ms (${fmt(m.ratio.total, 0)}×)`,
    ],
    ...relay.map((r) => [
      `Relay, ${r.label}`,
      `${fmt(r.burst.deliveriesPerSecond)} deliveries/s; p50 ${fmt(r.paced.latencyP50Ms, 1)} ms, p99 ${fmt(r.paced.latencyP99Ms, 0)} ms at ${fmt(r.paced.ratePerSession)} events/s`,
    ]),
    ...(report.relayCompare ?? []).map((r) => [
      `Relay vs raw Socket.IO, ${r.label}`,
      `p99 ${fmt(r.relay.latencyP99Ms, 2)} vs ${fmt(r.raw.latencyP99Ms, 2)} ms; ${fmt(r.relay.eventsPerSecond)} vs ${fmt(r.raw.eventsPerSecond)} events/s`,
    ]),
    ...(report.storage
      ? [
          [
            `MongoDB bytes written ÷ stored, one streamed turn`,
            `${fmt(report.storage.ratio, 2)}× (${fmt(report.storage.writtenBytes / 1024, 0)} / ${fmt(report.storage.storedBytes / 1024, 0)} KiB)`,
          ],
        ]
      : []),
    [
      `Reload ${fmt(big.turns)} turns (${fmt(big.bytes / 2 ** 20, 1)} MiB): session:join cold / warm`,
      `${fmt(big.coldJoinMs, 0)} / ${fmt(big.warmJoinMs, 0)} ms`,
    ],
    [
      `Reload, DB round trips per join (${reload.map((r) => fmt(r.turns)).join(" vs ")} turns)`,
      reload.map((r) => String(r.roundTrips)).join(" vs "),
    ],
    [
      `Reload in Chromium: rendered and scrollable (first / warm)`,
      "skipped" in browser ? `skipped (${browser.skipped})` : `${fmt(browser.firstRenderedMs)} / ${fmt(browser.renderedMs)} ms`,
    ],
    ...("skipped" in report.stream
      ? [[`Streaming in Chromium`, `skipped (${report.stream.skipped})`]]
      : report.stream.map((r) => [
          `Streaming ${fmt(r.tokensPerSecond)} tokens/s in Chromium, five panels ${r.panels}`,
          `${r.longTasks} long tasks (longest ${fmt(r.longestTaskMs)} ms); ${fmt(r.fpsMean)} fps, worst second ${fmt(r.fpsWorstSecond)}; keystroke painted p95 ${fmt(r.keyPaintP95Ms)} ms; heap ${fmt(r.heapStartMb, 0)} → ${fmt(r.heapEndMb, 0)} MB`,
        ])),
    [`Context: buildSessionContext, ${fmt(c.turns)} turns`, `${fmt(c.buildMs, 2)} ms (+ loadHistory ${fmt(c.loadHistoryMs, 0)} ms)`],
    [`Context tokens: clean vs full process JSON`, `${fmt(c.cleanTokens)} vs ${fmt(c.naiveTokens)} (${fmt(c.ratio, 1)}× fewer)`],
  ];
  return { title: "Summary", headers: ["measure", "result"], rows, leftAligned: true };
}
