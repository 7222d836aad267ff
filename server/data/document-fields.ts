import type { ChatTurn, Step, SubagentProcess, TurnStats } from "@/lib/contracts";

/**
 * What a turn or run document stores of its agent besides the texts (those are appended,
 * see document-writes.ts): the fields each write sets, as the schema stores them.
 */

/** One step's times as stored: a subdocument, since FerretDB stores no arrays of arrays. */
export interface StoredStepTime {
  startedAt: string;
  endedAt: string;
}

/** The steps' times as stored (`stepTimesField`), or nothing while no step has ended with times. */
export function stepTimesOf(steps: readonly Step[]): { stepTimes?: (StoredStepTime | null)[] } {
  if (!steps.some((s) => s.startedAt !== undefined)) return {};
  return {
    stepTimes: steps.map((s) =>
      s.startedAt !== undefined && s.endedAt !== undefined ? { startedAt: s.startedAt, endedAt: s.endedAt } : null,
    ),
  };
}

/** A step's times read back: a subdocument, or the `[startedAt, endedAt]` pair stored before. */
export function storedStepTime(stored: unknown): StoredStepTime | undefined {
  const [startedAt, endedAt]: unknown[] = Array.isArray(stored)
    ? stored
    : stored && typeof stored === "object"
      ? [(stored as Partial<StoredStepTime>).startedAt, (stored as Partial<StoredStepTime>).endedAt]
      : [];
  return typeof startedAt === "string" && typeof endedAt === "string" ? { startedAt, endedAt } : undefined;
}

/** What a streaming write of an agent's document sets besides its texts. */
export function streamingFields(agent: { steps: readonly Step[]; stats: TurnStats }) {
  return { stats: storedStats(agent.stats), ...stepTimesOf(agent.steps) };
}

/** A turn's fields as its last write stores them. */
export function endedTurnFields(turn: ChatTurn) {
  return {
    ...stepTimesOf(turn.steps),
    status: turn.status,
    stats: turn.stats,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
    ...(turn.endReason !== undefined ? { endReason: turn.endReason } : {}),
    ...(turn.endedAt ? { endedAt: new Date(turn.endedAt) } : {}),
  };
}

/** A process's fields but its texts (its steps and response are appended with them). */
export function processFields(p: SubagentProcess) {
  return {
    ...stepTimesOf(p.steps),
    prompt: p.prompt,
    status: p.status,
    stats: p.stats,
    ...(p.endReason ? { endReason: p.endReason } : {}),
    ...(p.error ? { error: p.error } : {}),
    ...(p.endedAt ? { endedAt: new Date(p.endedAt) } : {}),
    ...(p.model !== undefined ? { model: p.model } : {}),
    ...(p.steering ? { steering: p.steering } : {}),
  };
}

/** Stats as the schema stores them (statsSchema), built here since a streaming append skips mongoose's casting. */
function storedStats(stats: TurnStats): TurnStats {
  const { chat, system } = stats;
  return {
    chat: { inputTokens: chat.inputTokens, outputTokens: chat.outputTokens },
    system: { inputTokens: system.inputTokens, outputTokens: system.outputTokens },
    steps: stats.steps,
    runtimeMs: stats.runtimeMs,
    cost: stats.cost,
  };
}
