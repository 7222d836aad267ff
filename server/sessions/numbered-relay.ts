import type { AgentEvent, ChatTurn, SessionEvent } from "@/lib/contracts";
import { followStep } from "@/server/cluster/follow";
import type { LiveTurns } from "./live-turns";
import { relayedEvent } from "./relayed-event";
import { ReplayWindow } from "./replay-window";
import type { SequenceNumbers } from "./sequence-numbers";

/** Events kept for replay; a client further behind gets a snapshot instead. */
export const REPLAY_LIMIT = 50_000;

/**
 * A chat's events as this process relays them to its viewers: each numbered in order, the
 * last REPLAY_LIMIT kept for a browser that rejoins having missed a few, and relayed. The
 * events it relays are folded into the live turns first, so what a join reads and what the
 * room was sent agree at every number. In a cluster, its own events are also published for
 * the other processes, and a mirror relays the events another process numbered.
 */
export class NumberedRelay {
  /** Consecutive numbers only: a jump in the numbering starts it again. */
  private replay = new ReplayWindow(REPLAY_LIMIT);

  constructor(
    private readonly sessionId: string,
    private readonly numbers: SequenceNumbers,
    private readonly live: LiveTurns,
    private readonly relay: (event: SessionEvent) => void,
    private readonly publish?: (event: SessionEvent) => void,
  ) {}

  /** The number of the last event relayed (or where numbering stands). */
  get seq(): number {
    return this.numbers.current;
  }

  /** One of this process's events, folded already: numbered, kept for replay, relayed and published. */
  emit(event: AgentEvent): void {
    const relayed = relayedEvent(event, this.sessionId, this.numbers.next());
    this.replay.push(relayed);
    this.relay(relayed);
    this.publish?.(relayed);
  }

  /** The events a viewer that saw those up to `lastSeq` missed, or null when the window no longer holds them all. */
  missedAfter(lastSeq: number): SessionEvent[] | null {
    return this.replay.canReplay(lastSeq, this.seq) ? this.replay.after(lastSeq) : null;
  }

  /** An event another process numbered (see DroneSession.follow): folded and relayed here, neither stored nor published. */
  follow(event: SessionEvent): "applied" | "skipped" | "gap" {
    const step = followStep({ seq: this.seq, running: this.live.hasRunning() }, event);
    if (step === "skip") return "skipped";
    if (step === "gap") return "gap";
    if (step === "jump") this.jumpTo(event.seq - 1);
    this.live.add(event);
    this.numbers.moveTo(event.seq);
    this.replay.push(event);
    this.relay(event);
    return "applied";
  }

  /** Resynchronised from another process: its running turn (if any) as of `seq`. */
  adopt(running: ChatTurn | null, seq: number): void {
    this.live.adopt(running);
    this.numbers.moveTo(Math.max(0, seq));
    this.replay = new ReplayWindow(REPLAY_LIMIT);
  }

  /**
   * Numbering moves on to `seq`, past a gap (a lease taken over, a turn started elsewhere):
   * the replay window, which holds consecutive numbers, starts again.
   */
  jumpTo(seq: number): void {
    if (seq === this.seq) return;
    this.live.foldWaiting();
    this.numbers.moveTo(seq);
    this.replay = new ReplayWindow(REPLAY_LIMIT);
  }
}
