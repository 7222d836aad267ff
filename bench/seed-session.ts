import type { ChatTurn, Step, SubagentProcess, ToolCall, TurnStats } from "@/lib/contracts";
import { toolOutputOf } from "@/lib/contracts";
import { mulberry32 } from "@/test/support/turn/recorded-stream";
import { stepTimesOf, toolCallRecordId } from "@/server/data/event-store";
import type { Models } from "@/models";

/**
 * A long stored session for the reload and context benchmarks, built as the stored
 * shape (`ChatTurn[]`) first and then written as the rows the EventStore would have
 * written, bulk-inserted through the mongoose models. Keeping the turns lets the caller
 * check that `loadHistory` reads back exactly what was stored.
 *
 * Shape: `subagents` runs spread evenly over the turns; a fifth of them are grandchildren
 * (depth 2) spawned by evenly spaced top-level runs, so nesting is exercised; each run makes the same number of
 * nested tool calls (a parent's spawn call counts as one of them).
 */
export interface SeedOptions {
  sessionId: string;
  turns: number;
  subagents: number;
  nestedToolCalls: number;
  seed?: number;
}

export interface SeedShape {
  turns: number;
  subagents: number;
  nestedToolCalls: number;
  /** Documents inserted (turns + tool calls + runs). */
  documents: number;
}

const WORDS = [
  "the",
  "result",
  "shows",
  "that",
  "files",
  "under",
  "src",
  "are",
  "listed",
  "here",
  "and",
  "each",
  "module",
  "exports",
  "one",
  "function",
  "which",
  "reads",
  "config",
  "from",
  "disk",
  "then",
  "validates",
  "it",
  "before",
  "use;",
  "tests",
  "cover",
  "edge",
  "cases",
  "like",
  "empty",
  "input,",
  "unicode",
  "names",
  "or",
  "long",
  "paths.",
];

export function generateHistory(options: SeedOptions): ChatTurn[] {
  const random = mulberry32(options.seed ?? 11);
  const text = (chars: number): string => {
    let out = "";
    while (out.length < chars) out += WORDS[Math.floor(random() * WORDS.length)]! + (random() < 0.08 ? "\n\n" : " ");
    return out;
  };
  const stats = (steps: number): TurnStats => ({
    chat: { inputTokens: 900 * steps, outputTokens: 150 * steps },
    system: { inputTokens: 40, outputTokens: 10 },
    steps,
    runtimeMs: 1_500 * steps,
    cost: 0.002 * steps,
  });
  const t0 = Date.UTC(2026, 0, 1);
  const iso = (ms: number) => new Date(ms).toISOString();

  const children = Math.floor(options.subagents / 5);
  const topLevel = options.subagents - children;
  const perRun = Math.max(1, Math.round(options.nestedToolCalls / Math.max(1, options.subagents)));
  const spacing = topLevel > 0 ? options.turns / topLevel : Infinity;
  let runCount = 0;
  let topCount = 0;
  let childCount = 0;

  const plainCall = (callId: string, at: number): ToolCall => {
    const name = ["list_files", "read_file", "grep"][Math.floor(random() * 3)]!;
    const output = text(200 + Math.floor(random() * 400));
    const status = random() < 0.05 ? ("error" as const) : ("success" as const);
    const { response, responseSize } = toolOutputOf(output);
    // The timeline's times: asked at `at`, answered 50–500 ms later.
    const times = { startedAt: iso(at), endedAt: iso(at + 50 + Math.floor(random() * 450)) };
    return { callId, name, parameters: JSON.stringify({ path: `src/${name}/${callId}.ts` }), response, responseSize, status, ...times };
  };

  const makeRun = (turnId: string, parentRunId: string | null, depth: number, at: number, spawnChild: boolean): SubagentProcess => {
    const runId = `${options.sessionId}-run-${++runCount}`;
    const response = text(1_500);
    // Two working steps sharing the calls (reasoning and interim text each), then the answer.
    const working: Step[] = [
      { text: text(150), thinking: text(150), toolCalls: [] },
      { text: text(150), thinking: text(150), toolCalls: [] },
    ];
    for (let i = 0; i < perRun; i++) {
      const callId = `${runId}-call-${i + 1}`;
      const step = working[i < perRun / 2 ? 0 : 1]!;
      const callAt = at + 2_000 + i * 1_000;
      if (spawnChild && i === Math.floor(perRun / 2)) {
        const child = makeRun(turnId, runId, depth + 1, at + 1_000, false);
        const condensed = `[Subagent Result: researcher]\nStatus: success\n${child.response.slice(0, 800)}`;
        step.toolCalls.push({
          callId,
          name: "subagent",
          parameters: JSON.stringify({ task: child.task }),
          response: condensed,
          responseSize: condensed.length,
          status: "success",
          subagent: child,
        });
      } else {
        step.toolCalls.push(plainCall(callId, callAt));
      }
    }
    return {
      runId,
      parentRunId,
      depth,
      name: "researcher",
      task: `Investigate part ${runCount}: ${text(60).trim()}`,
      prompt: `Task: ${text(200)}`,
      steps: timed([...working, { text: response, thinking: "", toolCalls: [] }], at, at + 30_000),
      response,
      stats: stats(perRun),
      status: "success",
      endReason: "completed",
      startedAt: iso(at),
      endedAt: iso(at + 30_000),
    };
  };

  /** Steps share their agent's time evenly, one after another. */
  const timed = (steps: Step[], from: number, to: number): Step[] => {
    const each = Math.floor((to - from) / steps.length);
    return steps.map((step, i) => ({
      ...step,
      startedAt: iso(from + i * each),
      endedAt: iso(i === steps.length - 1 ? to : from + (i + 1) * each),
    }));
  };

  const turns: ChatTurn[] = [];
  for (let t = 0; t < options.turns; t++) {
    const turnId = `${options.sessionId}-turn-${t + 1}`;
    const createdAt = t0 + t * 60_000;
    const toolCalls: ToolCall[] = [];
    if (topCount < topLevel && t >= Math.round(topCount * spacing)) {
      topCount++;
      // Grandchildren go to evenly spaced top-level runs.
      const spawnChild = Math.floor((topCount * children) / topLevel) > childCount;
      if (spawnChild) childCount++;
      const run = makeRun(turnId, null, 1, createdAt + 1_000, spawnChild);
      const condensed = `[Subagent Result: researcher]\nStatus: success\n${run.response.slice(0, 800)}`;
      toolCalls.push({
        callId: `${turnId}-spawn`,
        name: "subagent",
        parameters: JSON.stringify({ task: run.task }),
        response: condensed,
        responseSize: condensed.length,
        status: "success",
        subagent: run,
      });
    }
    const steps: Step[] = timed(
      toolCalls.length
        ? [
            { text: text(200), thinking: "", toolCalls },
            { text: text(400), thinking: "", toolCalls: [] },
          ]
        : [{ text: text(600), thinking: "", toolCalls: [] }],
      createdAt,
      createdAt + 45_000,
    );
    turns.push({
      turnId,
      sessionId: options.sessionId,
      prompt: text(120).trim(),
      steps,
      stats: stats(steps.length),
      status: "completed",
      createdAt: iso(createdAt),
      endedAt: iso(createdAt + 45_000),
    });
  }
  return turns;
}

/** Writes the turns as stored rows; returns what was written. */
export async function insertHistory(models: Models, turns: readonly ChatTurn[]): Promise<SeedShape> {
  const turnRows: object[] = [];
  const callRows: object[] = [];
  const runRows: object[] = [];
  let nested = 0;

  const texts = (steps: readonly Step[]) => steps.map((s) => ({ text: s.text, thinking: s.thinking }));
  const addCalls = (turn: ChatTurn, runId: string | null, steps: readonly Step[]) => {
    let order = 0;
    steps.forEach((step, index) => {
      for (const call of step.toolCalls) {
        if (runId !== null) nested++;
        callRows.push({
          _id: toolCallRecordId(turn.turnId, runId, call.callId),
          sessionId: turn.sessionId,
          turnId: turn.turnId,
          runId,
          callId: call.callId,
          step: index,
          order: order++,
          name: call.name,
          parameters: call.parameters,
          response: call.response,
          responseSize: call.responseSize,
          status: call.status,
          startedAt: call.startedAt,
          endedAt: call.endedAt,
        });
        const run = call.subagent;
        if (!run) continue;
        runRows.push({
          _id: run.runId,
          sessionId: turn.sessionId,
          turnId: turn.turnId,
          callId: call.callId,
          parentRunId: run.parentRunId,
          depth: run.depth,
          name: run.name,
          task: run.task,
          prompt: run.prompt,
          steps: texts(run.steps),
          ...stepTimesOf(run.steps),
          response: run.response,
          status: run.status,
          endReason: run.endReason,
          stats: run.stats,
          startedAt: new Date(run.startedAt),
          endedAt: run.endedAt ? new Date(run.endedAt) : undefined,
        });
        addCalls(turn, run.runId, run.steps);
      }
    });
  };
  for (const turn of turns) {
    turnRows.push({
      _id: turn.turnId,
      sessionId: turn.sessionId,
      prompt: turn.prompt,
      steps: texts(turn.steps),
      ...stepTimesOf(turn.steps),
      status: turn.status,
      stats: turn.stats,
      createdAt: new Date(turn.createdAt),
      endedAt: turn.endedAt ? new Date(turn.endedAt) : undefined,
    });
    addCalls(turn, null, turn.steps);
  }
  // `lean` skips building documents; the rows already have the stored shape.
  await insertInBatches(models.Turn, turnRows);
  await insertInBatches(models.ToolCall, callRows);
  await insertInBatches(models.SubagentRun, runRows);
  return {
    turns: turnRows.length,
    subagents: runRows.length,
    nestedToolCalls: nested,
    documents: turnRows.length + callRows.length + runRows.length,
  };
}

const BATCH = 1_000;

async function insertInBatches(
  model: { insertMany(rows: object[], options: { lean: true; ordered: boolean }): Promise<unknown> },
  rows: object[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await model.insertMany(rows.slice(i, i + BATCH), { lean: true, ordered: false });
}
