import {
  AppError,
  TURN_PAGE_SIZE,
  wellFormedDeep,
  type AgentEvent,
  type ChatTurn,
  type RunCommand,
  type JoinResult,
  type RetryStarted,
  type SessionEvent,
} from "@/lib/contracts";
import type { TurnRetry } from "@/lib/agent/retry";
import type { SpendGate } from "@/lib/agent/budget-stop";
import { planRetry } from "@/lib/agent/retry-plan";
import { findRun } from "@/lib/turn/retries";
import { isTextEvent } from "@/lib/turn/coalesce";
import type { EventStore } from "@/server/data/event-store";
import type { ModelCallLog } from "@/server/data/model-call-log";
import { newId } from "@/server/data/ids";
import { DEFAULT_TITLE, type ChatStore } from "@/server/data/store";
import type { TurnHandle, TurnRunner } from "./turn-runner";
import type { TurnSettings } from "@/server/catalog/chat-settings";
import type { Logger } from "@/lib/log";
import { SequenceNumbers } from "./sequence-numbers";
import { LiveTurns } from "./live-turns";
import { overlayLiveTurns } from "./history-overlay";
import { NumberedRelay } from "./numbered-relay";
import { TextFlush } from "./text-flush";
import { controlRun, type ControlAnswer } from "./run-controls";
import { endGhostTurn } from "./ghost-takeover";
import type { DroneCluster, LeaseHolder, MirrorSnapshot, TurnLease } from "./cluster-port";
import {
  branchTree,
  branchView,
  newestLeaf,
  pathTo,
  recordedParent,
  type BranchTree,
  type BranchView,
  type TurnLink,
} from "@/lib/branches/branch-tree";
import type { AttachmentRef, Budget } from "@/lib/contracts";
import { promptAttachmentsOf } from "@/server/attachments/prompt-attachments";
import type { SessionObserver } from "./session-observer";

export type { DroneCluster, MirrorSnapshot } from "./cluster-port";
export { REPLAY_LIMIT } from "./numbered-relay";

/** The one command that answers something: how the retry started. */
export type RetryCommand = Extract<RunCommand, { kind: "retry" }>;

/** How often streamed text is handed to the store to write (at most one write per document each time). */
const FLUSH_MS = 100;
const TITLE_CHARS = 60;

export interface DroneSessionDeps {
  store: ChatStore;
  sessionId: string;
  title: string;
  runner: TurnRunner;
  /** The chat's model and instructions as a turn starts (read for each turn); absent: the runner's own model. */
  turnSettings?: () => Promise<TurnSettings>;
  relay: (event: SessionEvent) => void;
  onTitleChanged?: (title: string) => void;
  log?: Pick<Logger, "warn" | "error">;
  flushMs?: number;
  cluster?: DroneCluster;
  /** Shown every event of the turns run here and every model request (the process's metrics). */
  observe?: SessionObserver;
}

/**
 * Who starts a turn: the chat's owner, and the person whose caps it counts against (the
 * APP_PASSWORD login the owner's identity came in under, else the owner; see `personKey`).
 */
export interface TurnStarter {
  ownerId: string;
  person: string;
  /** The account that sent the prompt, recorded on the turn (`ChatTurn.sentBy`); absent: not recorded. */
  sentBy?: string;
  /** Scaled out: the most turns `person` may run at once in every process together (checked once the lease is held). */
  maxRunning?: number;
  /** The person's quota the turn counts against (server/budgets/); absent: none. */
  quota?: SpendGate;
}

/** How a turn starts besides its prompt and person. */
export interface TurnOptions {
  /** The turn first runs that failed subagent again. */
  retry?: TurnRetry;
  /** Beside a turn (an edit, a regeneration): after its parent. */
  place?: { parent: string | null };
  /** The chat's attachments the prompt names. */
  attachments?: AttachmentRef[];
  /** What the turn may spend (the sender's choice); absent: the runtime's default. */
  budget?: Budget;
}

interface ActiveTurn {
  turnId: string;
  /** The person the turn counts against (running-turn cap, regex-pool fairness). */
  person?: string;
  /** Set once the runner has the turn (loading history comes first). */
  handle?: TurnHandle;
  cancelled?: boolean;
  /** Resolves once the turn ended and (cluster) its lease was released. */
  finished?: Promise<void>;
}

/**
 * The server side of one chat session: starts turns, and for every event the agent
 * publishes it (1) folds it into the in-memory turn (live-turns.ts), (2) queues it for
 * MongoDB and (3) stamps the next sequence number and relays it to the session's room
 * (numbered-relay.ts), in that order, in one synchronous step. A browser that joins later gets a snapshot
 * consistent with a sequence number, or the events it missed; either way it converges on
 * the live state.
 */
export class DroneSession {
  readonly sessionId: string;
  private title: string;
  /** The running turn and the last finished ones, newer than what MongoDB may hold yet. */
  private readonly live: LiveTurns;
  /** Numbers what the viewers are sent, keeps the last for a rejoin, relays it. */
  private readonly relay: NumberedRelay;
  private active: ActiveTurn | undefined;
  /** Being deleted: no turn may start any more. */
  private closed = false;
  private readonly store: EventStore;
  private readonly textFlush: TextFlush;
  private readonly modelCalls: ModelCallLog;
  /** The search index's writes for this chat, chained (see `index`). */
  private indexing: Promise<void> = Promise.resolve();
  /** The first prompt's title, on its way to MongoDB (see `retitle`). */
  private titleWrite: Promise<void> = Promise.resolve();
  /**
   * The chat's turn links and branch in view, read once. Only without a cluster: then every
   * turn of the chat starts here and every switch happens here, so each is added as it
   * happens and the copy stays true. In a cluster another process may start a turn or
   * switch, so each read goes to MongoDB.
   */
  private branchCache: { links: TurnLink[]; active: string | undefined } | undefined;

  private constructor(
    private readonly deps: DroneSessionDeps,
    private readonly numbers: SequenceNumbers,
  ) {
    this.sessionId = deps.sessionId;
    this.title = deps.title;
    const meter = deps.observe?.outbox;
    this.store = deps.store.eventWriter({ sessionId: deps.sessionId, log: deps.log, ...(meter ? { meter } : {}) });
    this.modelCalls = deps.store.modelCallLog({ sessionId: deps.sessionId, log: deps.log });
    this.live = new LiveTurns(deps.sessionId, (turn) => this.index(turn), deps.log);
    const publish = deps.cluster && ((event: SessionEvent) => deps.cluster!.publish(event));
    this.relay = new NumberedRelay(deps.sessionId, numbers, this.live, deps.relay, publish);
    this.textFlush = new TextFlush(this.store, this.live, deps.flushMs ?? FLUSH_MS, deps.log);
  }

  static async open(deps: DroneSessionDeps): Promise<DroneSession> {
    const numbers = await SequenceNumbers.open((count) => deps.store.reserveSeqBlock(deps.sessionId, count), deps.log);
    return new DroneSession(deps, numbers);
  }

  get currentSeq(): number {
    return this.relay.seq;
  }

  get runningTurnId(): string | undefined {
    return this.active?.turnId;
  }

  /** The person the running turn counts against; undefined when none runs or it was started for no one (a resumed turn). */
  get runningPerson(): string | undefined {
    return this.active?.person;
  }

  get isIdle(): boolean {
    return !this.active;
  }

  /**
   * Starts a turn for `starter` (the person sending it); one at a time per session.
   * `retry`: the turn first runs that failed subagent again.
   */
  async startTurn(prompt: string, starter?: TurnStarter, options: TurnOptions = {}): Promise<string> {
    const { retry, place, attachments, budget } = options;
    const quota = starter?.quota;
    if (this.closed) throw deleted();
    if (this.active) throw new AppError("busy", "A turn is already running in this chat. Stop it or wait for it to finish.");
    const turnId = newId();
    // Claim the slot before any await, so two sends cannot both start.
    const slot: ActiveTurn = { turnId, ...(starter ? { person: starter.person } : {}) };
    this.active = slot;
    let handle: TurnHandle;
    let lease: TurnLease | undefined;
    try {
      if (this.deps.cluster) lease = await this.claimLease(slot, starter);
      const [{ tree, view }, settings] = await Promise.all([this.branch(), this.deps.turnSettings?.()]);
      // After the branch in view, or (an edit, a regeneration) beside a turn: after its parent.
      const parent = place ? place.parent : (view.path.at(-1) ?? null);
      if (parent !== null && !tree.parents.has(parent)) throw new AppError("not_found", "That turn is not in this chat.");
      const history = (await this.turnsOf(parent === null ? [] : pathTo(tree, parent))).filter((t) => t.status !== "running");
      const parentTurnId = recordedParent(tree, parent);
      await this.deps.store.setActiveTurn(this.sessionId, turnId);
      if (this.branchCache) this.branchCache.active = turnId;
      // Beside a turn, the branch in view changes: the old one leaves search.
      if (place) this.markBranchInView([...(parent === null ? [] : pathTo(tree, parent)), turnId]);
      // Deleted (or stopped) while the history loaded: the turn never starts.
      if (this.closed) throw deleted();
      if (slot.cancelled) throw new AppError("not_found", "That turn was stopped before it started.");
      if (this.title === DEFAULT_TITLE && history.length === 0) this.retitle(prompt);
      handle = this.deps.runner.startTurn({
        sessionId: this.sessionId,
        turnId,
        prompt,
        // The shared pools take turns between people: the login, not each identity minted under it.
        ...(starter ? { ownerId: starter.person, toolsFor: starter.ownerId } : {}),
        ...(starter?.sentBy !== undefined ? { sentBy: starter.sentBy } : {}),
        history,
        publish: (event) => this.onEvent(event),
        turn: () => this.liveTurn(turnId),
        recordModelCall: (record) => {
          this.modelCalls.write(record);
          this.observed(() => this.deps.observe?.modelCall(record));
        },
        attachments: this.deps.store.attachments.area(this.sessionId),
        ...(attachments?.length
          ? { promptAttachments: promptAttachmentsOf(this.deps.store.attachments, this.sessionId, attachments) }
          : {}),
        ...(retry ? { retry } : {}),
        ...(budget ? { budget } : {}),
        ...(quota ? { quota } : {}),
        ...(settings?.model ? { model: settings.model } : {}),
        ...(settings?.instructions ? { instructions: settings.instructions } : {}),
        ...(settings?.agents ? { agents: settings.agents } : {}),
        ...parentTurnId,
      });
      this.branchCache?.links.push({ turnId, ...parentTurnId });
    } catch (error) {
      this.active = undefined;
      await lease?.release(this.relay.seq);
      throw error;
    }
    slot.handle = handle;
    slot.finished = handle.done
      .then(
        () => undefined,
        () => undefined,
      )
      .then(async () => {
        // Cluster: the next holder loads the history from MongoDB, so it is all there first.
        if (lease)
          await this.drain().then(
            () => lease.release(this.relay.seq),
            () => lease.release(this.relay.seq),
          );
        if (this.active === slot) this.active = undefined;
      });
    return turnId;
  }

  /**
   * A person's command for the running turn (or, for a retry, the chat): the one place a
   * command meets the runtime. `claim` and `starter` are the caller's, for a retry that
   * starts a new turn.
   */
  command(command: RetryCommand, claim?: () => void, starter?: TurnStarter): Promise<RetryStarted>;
  command(command: RunCommand): Promise<RetryStarted | undefined>;
  async command(command: RunCommand, claim?: () => void, starter?: TurnStarter): Promise<RetryStarted | undefined> {
    switch (command.kind) {
      case "cancel":
        this.cancel(command.turnId);
        return undefined;
      case "steer":
      case "kill":
      case "decide":
      case "answer":
        return answered(controlRun(this.active?.handle, command));
      case "retry":
        return this.retry(command.runId, command.task, claim, starter);
    }
  }

  cancel(turnId: string): void {
    if (!this.active || this.active.turnId !== turnId) throw new AppError("not_found", "That turn is not running.");
    this.active.cancelled = true;
    this.active.handle?.cancel();
  }

  /**
   * Retry of a failed, killed or timed-out run. In the running turn it is the runtime's
   * (the retry's result replaces the failed one if the parent has not read it yet); with
   * no turn running it starts a new turn that runs the subagent again first. `claim`
   * runs in the same synchronous step as the new turn claims its slot (the caller's caps).
   */
  async retry(runId: string, task: string | undefined, claim: () => void = () => undefined, starter?: TurnStarter): Promise<RetryStarted> {
    if (this.closed) throw deleted();
    const active = this.active;
    if (active) {
      const result = active.handle?.retry?.(runId, task);
      if (result?.ok) return { mode: "in_turn", turnId: active.turnId, runId: result.runId };
      if (result && result.reason !== "not_found")
        throw new AppError(result.reason === "already_read" ? "busy" : "bad_request", result.message);
      if (findRun(await this.allHistory(), runId)) {
        throw new AppError("busy", "A turn is running in this chat. Retry this run when it has finished, or stop it first.");
      }
      throw new AppError("not_found", `Run ${runId} was not found in this chat.`);
    }
    const plan = planRetry(await this.allHistory(), runId, task);
    if (!plan.ok) throw new AppError(plan.code, plan.message);
    claim();
    const turnId = await this.startTurn(plan.prompt, starter, { retry: plan.retry });
    return { mode: "new_turn", turnId };
  }

  /**
   * What a joining browser needs. With `lastSeq` inside the replay window: the events
   * after it, handed to `subscribe` with the sequence number they end at. Otherwise a
   * snapshot (and `subscribe` gets null).
   * `subscribe` runs in the same synchronous step as the state is read, so the caller can
   * send the missed events and join the room before any later event is relayed: nothing
   * falls between, nothing arrives out of order.
   */
  async join(
    lastSeq: number | undefined,
    subscribe: (missed: SessionEvent[] | null, seq: number) => void = () => undefined,
  ): Promise<JoinResult> {
    const missed = lastSeq === undefined ? null : this.relay.missedAfter(lastSeq);
    if (missed) {
      subscribe(missed, this.relay.seq);
      return { mode: "replay", sessionId: this.sessionId, seq: this.relay.seq };
    }
    const { view } = await this.branch();
    const stored = await this.deps.store.loadHistoryPage(this.sessionId, TURN_PAGE_SIZE, undefined, view.path);
    // From here on, one synchronous step: the streamed text waiting to be folded is folded,
    // the page is read and the viewer subscribed, so no event falls between the snapshot
    // and the room (the snapshot's seq covers exactly what it holds).
    const turns = overlayLiveTurns(stored.turns, this.liveOn(view.path), true);
    subscribe(null, this.relay.seq);
    return {
      mode: "snapshot",
      sessionId: this.sessionId,
      title: this.title,
      seq: this.relay.seq,
      turns,
      older: stored.older,
      ...siblingsOf(view, turns),
    };
  }

  /**
   * The `limit` turns before the turn `before` (the newest ones without it), stored ones
   * with the in-memory ones laid over them as in `history`. The in-memory turns are the
   * newest (the running one and the last finished): a newest page adds those MongoDB does
   * not hold yet, so the running turn is always in the join's page.
   */
  async page(limit: number, before?: string): Promise<{ turns: ChatTurn[]; older: string | null; siblings?: Record<string, string[]> }> {
    const { view } = await this.branch();
    const stored = await this.deps.store.loadHistoryPage(this.sessionId, limit, before, view.path);
    const turns = overlayLiveTurns(stored.turns, this.liveOn(view.path), before === undefined);
    return { turns, older: stored.older, ...siblingsOf(view, turns) };
  }

  /**
   * Shows the branch that holds `turnId` (its newest leaf below it) from now on, for every
   * viewer who opens the chat; a running turn on the branch being left is stopped first.
   */
  async switchTo(turnId: string, subscribe?: (missed: SessionEvent[] | null, seq: number) => void): Promise<JoinResult> {
    let { tree } = await this.branch();
    if (!tree.parents.has(turnId)) throw new AppError("not_found", "That turn is not in this chat.");
    const running = this.active?.turnId;
    if (running && !pathTo(tree, newestLeaf(tree, turnId)).includes(running)) {
      await this.stopRunning();
      ({ tree } = await this.branch());
    }
    const leaf = newestLeaf(tree, turnId);
    await this.deps.store.setActiveTurn(this.sessionId, leaf);
    if (this.branchCache) this.branchCache.active = leaf;
    this.markBranchInView(pathTo(tree, leaf));
    return this.join(undefined, subscribe);
  }

  /**
   * A new turn beside `turnId` (same parent): an edited prompt (`prompt`) or, without one,
   * its prompt again (regenerate), with the attachments it named. The old turn stays whole
   * on its branch; a running turn is stopped first. `beforeStart` runs once nothing runs here any more (the caller's caps).
   */
  async startBeside(
    turnId: string,
    prompt: string | undefined,
    starter?: TurnStarter,
    beforeStart: () => void = () => undefined,
  ): Promise<string> {
    await this.stopRunning();
    const { tree } = await this.branch();
    if (!tree.parents.has(turnId)) throw new AppError("not_found", "That turn is not in this chat.");
    const original = (await this.turnsOf([turnId]))[0];
    if (!original) throw new AppError("not_found", "That turn is not in this chat.");
    // The files the prompt named go with its new version, those still attached to the chat.
    const held = original.attachments?.length
      ? new Set((await this.deps.store.attachments.list(this.sessionId)).map((ref) => ref.attachmentId))
      : new Set<string>();
    const attachments = original.attachments?.filter((ref) => held.has(ref.attachmentId));
    beforeStart();
    return this.startTurn(prompt ?? original.prompt, starter, {
      place: { parent: tree.parents.get(turnId) ?? null },
      ...(attachments?.length ? { attachments } : {}),
    });
  }

  /** The turns of the branch in view up to `turnId` (a fork's), finished ones only. */
  async branchUpTo(turnId: string): Promise<ChatTurn[]> {
    const { tree } = await this.branch();
    if (!tree.parents.has(turnId)) throw new AppError("not_found", "That turn is not in this chat.");
    return (await this.turnsOf(pathTo(tree, turnId))).filter((t) => t.status !== "running");
  }

  /** Stops the running turn, if any, and waits until it has ended. */
  async stopRunning(): Promise<void> {
    const active = this.active;
    if (!active) return;
    active.cancelled = true;
    active.handle?.cancel();
    await (active.finished ?? active.handle?.done.catch(() => undefined));
  }

  /** The chat's branch tree (stored turns, and those held here MongoDB may not have yet) and the branch in view. */
  private async branch(): Promise<{ tree: BranchTree; view: BranchView }> {
    const { links, active } = await this.branchState();
    const known = new Set(links.map((l) => l.turnId));
    const fresh = [...this.live.all().values()]
      .filter((t) => !known.has(t.turnId))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    for (const t of fresh)
      links.push(t.parentTurnId === undefined ? { turnId: t.turnId } : { turnId: t.turnId, parentTurnId: t.parentTurnId });
    const tree = branchTree(links);
    return { tree, view: branchView(tree, active) };
  }

  /** The stored turn links (a copy the caller may extend) and the turn last viewed. */
  private async branchState(): Promise<{ links: TurnLink[]; active: string | undefined }> {
    if (this.branchCache) return { links: [...this.branchCache.links], active: this.branchCache.active };
    const [links, active] = await Promise.all([this.deps.store.loadTurnLinks(this.sessionId), this.deps.store.activeTurn(this.sessionId)]);
    if (this.deps.cluster) return { links, active };
    // A read that began before a turn started here must not replace the copy that turn was added to.
    this.branchCache ??= { links: [...links], active };
    return { links: [...this.branchCache.links], active: this.branchCache.active };
  }

  /** These turns, stored ones with those held here laid over them, in start order. */
  private async turnsOf(turnIds: readonly string[]): Promise<ChatTurn[]> {
    if (turnIds.length === 0) return [];
    const stored = await this.deps.store.loadHistory(this.sessionId, turnIds);
    return overlayLiveTurns(stored, this.liveOn(turnIds), true);
  }

  /** The turns held here that are on `path`. */
  private liveOn(path: readonly string[]): ReadonlyMap<string, ChatTurn> {
    const on = new Set(path);
    return new Map([...this.live.all()].filter(([turnId]) => on.has(turnId)));
  }

  /** The server's fold of a turn still held in memory (the running one and the last finished). */
  liveTurn(turnId: string): ChatTurn | undefined {
    return this.live.get(turnId);
  }

  /** The branch in view: its stored turns with the in-memory ones laid over them (they may be newer). */
  async history(): Promise<ChatTurn[]> {
    const { view } = await this.branch();
    return this.turnsOf(view.path);
  }

  /** Every turn of the chat, every branch. */
  async allHistory(): Promise<ChatTurn[]> {
    const stored = await this.deps.store.loadHistory(this.sessionId);
    return overlayLiveTurns(stored, this.live.all(), true);
  }

  /** Resolves when every event so far is in MongoDB, with the chat's title, and search knows what they said. */
  async drain(): Promise<void> {
    this.textFlush.stop();
    await Promise.all([this.store.drain(this.live.all().values()), this.modelCalls.drain(), this.titleWrite]);
    // A write chained while an earlier one ran is waited for too.
    for (let pending = this.indexing; ; pending = this.indexing) {
      await pending;
      if (pending === this.indexing) break;
    }
  }

  /** Waits for the running turn, if any, to end, and for everything to be written. */
  async settled(): Promise<void> {
    await (this.active?.finished ?? this.active?.handle?.done.catch(() => undefined));
    await this.drain();
  }

  /**
   * For a delete: from now on no turn starts (a send gets `not_found`), the running one is
   * stopped, and this resolves once it has ended and everything it wrote is stored, so
   * the caller can remove the data knowing nothing will be written after it.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.active) {
      this.active.cancelled = true;
      this.active.handle?.cancel();
    }
    await this.settled();
  }

  /** Cluster: takes the lease and continues the chat's numbering where the last holder left it. */
  private async claimLease(slot: ActiveTurn, starter: TurnStarter | undefined): Promise<TurnLease> {
    const lost = () => {
      // Swept by another process after a stall: this turn is no longer ours to run.
      if (this.active === slot) this.active.handle?.cancel();
    };
    const holder: LeaseHolder = starter ? { ...starter } : { ownerId: "", person: null };
    const lease = await this.deps.cluster!.claim(this.sessionId, slot.turnId, holder, () => this.relay.seq, lost);
    try {
      const seq = this.relay.seq;
      if (lease.previousSeq === null) this.relay.jumpTo(Math.max(seq, await this.numbers.freshStart()));
      else this.relay.jumpTo(Math.max(seq, lease.previousSeq));
    } catch (error) {
      await lease.release(this.relay.seq);
      throw error;
    }
    return lease;
  }

  /**
   * Cluster: an event of a turn another process runs, read from the shared stream. Folded
   * and relayed to this process's viewers like our own (not stored, not published: the
   * owner does both), so a join here answers as on the owner. "gap": events were lost and
   * the caller resynchronises (`adopt`).
   */
  follow(event: SessionEvent): "applied" | "skipped" | "gap" {
    return this.relay.follow(event);
  }

  /** What the owner has of its running turn, consistent with its sequence number (one synchronous step). */
  mirrorSnapshot(): MirrorSnapshot | null {
    const turnId = this.active?.turnId;
    if (!turnId) return null;
    return { turn: this.liveTurn(turnId) ?? null, seq: this.relay.seq };
  }

  /**
   * Cluster: takes the owner's snapshot (or, with no turn running anywhere, the chat's
   * last number) after a gap: turns held here as running that the owner no longer runs
   * ended while we were not listening, and MongoDB has them now.
   */
  adopt(snapshot: MirrorSnapshot): void {
    this.relay.adopt(snapshot.turn, snapshot.seq);
  }

  /** Cluster: ends the turn a dead process left running, this process having taken its lease over (ghost-takeover.ts). */
  async endGhost(turnId: string, leaseSeq: number, now = new Date(), recovered?: { turn: ChatTurn; seq: number }): Promise<number> {
    const { sessionId, live, relay, numbers } = this;
    const historyTurn = async (id: string) => (await this.allHistory()).find((t) => t.turnId === id);
    return endGhostTurn({ sessionId, store: this.deps.store, live, relay, numbers, historyTurn }, turnId, leaseSeq, now, recovered);
  }

  setTitle(title: string): void {
    this.title = title;
  }

  private onEvent(published: AgentEvent): void {
    // What an agent says enters here, whichever runner made it: normalised once, before the
    // fold, the store and the relay, so the live, stored and shared turns hold the same text.
    const event = wellFormedDeep(published);
    this.live.add(event);
    if (isTextEvent(event)) this.store.record(event);
    else this.store.record(event, this.live.get(event.turnId));
    this.relay.emit(event);
    this.textFlush.wake();
    this.observed(() => this.deps.observe?.event(event, this.sessionId));
  }

  /** An observer that throws must not stop the turn it watches. */
  private observed(show: () => void): void {
    try {
      show();
    } catch (error) {
      this.deps.log?.warn("an observer of the chat's events failed", { error: String(error) });
    }
  }

  /** Search finds a turn by its prompt once it starts, and by its answers once it ends. */
  private index(turn: ChatTurn): void {
    // One write at a time, in order: the start's entry must never land after the end's.
    this.indexing = this.indexing
      .then(() => this.deps.store.indexTurns(this.sessionId, [turn]))
      .catch((error: unknown) => this.deps.log?.warn("could not index the turn for search", { error: String(error) }));
  }

  /** After the index writes already queued, so a turn's entry written late does not come back into search. */
  private markBranchInView(path: readonly string[]): void {
    this.indexing = this.indexing
      .then(() => this.deps.store.markBranchInView(this.sessionId, path))
      .catch((error: unknown) => this.deps.log?.warn("could not mark the branch in view for search", { error: String(error) }));
  }

  private retitle(prompt: string): void {
    const oneLine = prompt.replace(/\s+/g, " ").trim();
    const title = oneLine.length > TITLE_CHARS ? `${oneLine.slice(0, TITLE_CHARS - 1)}…` : oneLine;
    this.title = title;
    this.titleWrite = this.deps.store
      .touchSession(this.sessionId, title)
      .then(() => this.deps.onTitleChanged?.(title))
      .catch((error: unknown) => this.deps.log?.warn("could not save the title", { error: String(error) }));
  }
}

/** The alternatives of the shown turns that have some (absent when none has). */
function siblingsOf(view: BranchView, turns: readonly ChatTurn[]): { siblings?: Record<string, string[]> } {
  const shown = turns.filter((t) => view.siblings[t.turnId]);
  return shown.length ? { siblings: Object.fromEntries(shown.map((t) => [t.turnId, view.siblings[t.turnId]!])) } : {};
}

function deleted(): AppError {
  return new AppError("not_found", "That chat does not exist.");
}

/** Nothing to answer once the running turn took a control; its refusal is the caller's error. */
function answered(answer: ControlAnswer): undefined {
  if (!answer.ok) throw new AppError(answer.code ?? "not_found", answer.message);
  return undefined;
}
