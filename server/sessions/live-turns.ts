import type { AgentEvent, ChatTurn } from "@/lib/contracts";
import { coalesceText, isTextEvent, type TextEvent } from "@/lib/turn/coalesce";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import type { Logger } from "@/lib/log";

/** Text events folded at once at most (a bound on the work of one read and on what waits). */
const FOLD_BATCH = 1_024;

/**
 * The one in-memory fold of a chat's live turns: the running one and the last finished,
 * newer than what MongoDB may hold yet. Every event the session relays is folded here
 * once, and what reads a turn (the runtime, the store's writes, a join, history) reads it
 * here.
 *
 * Streamed text is the bulk of the events and nobody reads the turn between two tokens,
 * so text events are folded when a turn is next read or once FOLD_BATCH of them wait,
 * merged where they continue each other (lib/turn/coalesce.ts): one fold per stretch of
 * text instead of one per token, and the same turn. Every other event folds at once,
 * after the text before it.
 */
export class LiveTurns {
  /** Text events not folded yet, in order. */
  private unfolded: TextEvent[] = [];
  private readonly turns = new Map<string, ChatTurn>();

  constructor(
    private readonly sessionId: string,
    /** Told of a turn as it starts and as it ends (the moments search indexes it). */
    private readonly onStartOrEnd: (turn: ChatTurn) => void,
    private readonly log?: Pick<Logger, "warn">,
  ) {}

  /** Folds `event` in its order: text waits for a batch; any other event folds now, after the text before it. */
  add(event: AgentEvent): void {
    if (isTextEvent(event)) {
      this.unfolded.push(event);
      if (this.unfolded.length >= FOLD_BATCH) this.foldWaiting();
    } else {
      this.foldWaiting();
      this.fold(event);
    }
  }

  /** Folds the text events waiting, in order, contiguous ones merged. */
  foldWaiting(): void {
    if (this.unfolded.length === 0) return;
    const events = this.unfolded;
    this.unfolded = [];
    for (const event of events.length === 1 ? events : coalesceText(events)) this.fold(event);
  }

  /** A turn held here, with every event so far folded in. */
  get(turnId: string): ChatTurn | undefined {
    this.foldWaiting();
    return this.turns.get(turnId);
  }

  /** Every turn held here, with every event so far folded in. */
  all(): ReadonlyMap<string, ChatTurn> {
    this.foldWaiting();
    return this.turns;
  }

  /** Holds `turn` as it is (a turn recovered from elsewhere, to fold its next events into). */
  hold(turn: ChatTurn): void {
    this.turns.set(turn.turnId, turn);
  }

  hasRunning(): boolean {
    for (const turn of this.turns.values()) if (turn.status === "running") return true;
    return false;
  }

  /**
   * Takes the running turn as another process has it (`running`, or none running there):
   * turns held here as running that it no longer runs ended while nobody here listened,
   * and MongoDB has them now.
   */
  adopt(running: ChatTurn | null): void {
    this.foldWaiting();
    for (const [turnId, turn] of this.turns) if (turn.status === "running" && turnId !== running?.turnId) this.turns.delete(turnId);
    if (running) this.turns.set(running.turnId, running);
  }

  private fold(event: AgentEvent): void {
    if (event.type === "turn:started") {
      // Keep only the last finished turn besides the new one: older ones are durable.
      for (const [turnId, turn] of this.turns) if (turn.status !== "running" && this.turns.size > 1) this.turns.delete(turnId);
      const started = turnFromStart(event, this.sessionId);
      this.turns.set(event.turnId, started);
      this.onStartOrEnd(started);
      return;
    }
    const turn = this.turns.get(event.turnId);
    if (!turn) {
      this.log?.warn("event for an unknown turn", { type: event.type, turnId: event.turnId });
      return;
    }
    const folded = applyEvent(turn, event);
    this.turns.set(event.turnId, folded);
    if (event.type === "turn:ended") this.onStartOrEnd(folded);
  }
}
