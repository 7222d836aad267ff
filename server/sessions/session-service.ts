import {
  AppError,
  SESSION_PAGE_SIZE,
  TURN_PAGE_SIZE,
  type SearchResults,
  type SessionCursor,
  type SessionPage,
  type JoinResult,
  type ModelCallRecord,
  type ModelCallSummary,
  type RetryStarted,
  type RunCommand,
  type SessionEvent,
  type SessionSummary,
  type TurnPage,
  type ChatSettings,
  type ChatSettingsInput,
  type ModelCatalog,
  type Budget,
} from "@/lib/contracts";
import type { ChatSettingsService, ModelChoices } from "@/server/catalog/chat-settings";
import type { ChatStore } from "@/server/data/store";
import { exportedTurns, exportSession, type ExportFormat, type SessionExport } from "@/server/export/session-export";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type ExportedTurn, type SessionFile } from "@/lib/export/session-file";
import { resolvePromptAttachments } from "@/server/attachments/prompt-attachments";
import { copyChatAttachments } from "@/server/attachments/attachment-transfer";
import { importSessionFile } from "@/server/export/session-import";
import { checkSessionFileOffThread } from "@/server/export/check-off-thread";
import type { DroneSession, RetryCommand, TurnStarter } from "./drone-session";
import { createKeyedQueue } from "./keyed-queue";
import { createReadGate, releasingChunks, type ReadGate } from "./read-gate";
import type { SessionRegistry } from "./registry";
import { DEFAULT_PERSON_LIMITS, tooManyTurns, type PersonLimits } from "./person-limits";
import type { RoutedAnswer, RoutedCommand } from "@/server/cluster/protocol";
import type { QuotaLedger } from "@/server/budgets/quota-ledger";
import type { SpendGate } from "@/lib/agent/budget-stop";
import type { ChatAction } from "@/lib/members/can";
import { refusal } from "@/lib/members/can";
import { actorsOf } from "@/lib/members/actors";
import { chatGate, type ChatGate } from "@/server/members/chat-gate";
import type { ChatAccess } from "@/server/members/member-store";

/** Scale-out: what the service asks of the other processes (server/cluster/cluster.ts). */
export interface ServiceCluster {
  /** A command for a turn another process runs, answered by that process. */
  route(sessionId: string, command: RoutedCommand): Promise<RoutedAnswer>;
  /** Stops a turn another process runs in the chat and waits until it let go (before a delete). */
  stopElsewhere(sessionId: string): Promise<void>;
}

/**
 * What a person can do with their chats, whichever door they came in by: the socket
 * handlers and the HTTP routes both call this, and nothing else. Every method that names
 * a session checks first, through one gate (`server/members/chat-gate.ts`), that the
 * person's role in the chat allows what they ask; a chat they are not in is answered
 * exactly like one that does not exist.
 */
const DEFAULT_READS_PER_PERSON = 3;

export interface SessionServiceDeps {
  store: ChatStore;
  registry: SessionRegistry;
  limits?: PersonLimits;
  /** Large reads one person runs at once (history pages, exports, whole outputs, model requests); defaults to 3. */
  readsPerPerson?: number;
  /** A chat's model and instructions (server/catalog/chat-settings.ts). */
  chatSettings: ChatSettingsService;
  catalog?: ModelChoices;
  /** Every tab of `userId` should refresh its session list. */
  onSessionsChanged(userId: string): void;
  /** The session is gone: viewers still in its room must leave it. */
  onSessionDeleted(sessionId: string): void;
  cluster?: ServiceCluster;
  /** A person's daily and monthly quotas (server/budgets/); absent: none. */
  quotas?: QuotaLedger;
}

export class SessionService {
  readonly limits: PersonLimits;
  /** A person's creates one at a time, so concurrent ones cannot all pass the count. */
  private readonly creates = createKeyedQueue();
  /** A person's large reads, bounded (see read-gate.ts); a few more than a person's tabs may wait. */
  private readonly reads: ReadGate;
  private readonly gate: ChatGate;

  constructor(private readonly deps: SessionServiceDeps) {
    this.limits = deps.limits ?? DEFAULT_PERSON_LIMITS;
    const concurrent = deps.readsPerPerson ?? DEFAULT_READS_PER_PERSON;
    this.reads = createReadGate({ concurrent, waiting: Math.max(this.limits.sockets, 4 * concurrent) });
    this.gate = chatGate(deps.store.members);
  }

  /** The one check of every chat's door: `userId`'s role in the chat allows `action` (see lib/members/can.ts). */
  allowed(userId: string, sessionId: string, action: ChatAction): Promise<ChatAccess> {
    return this.gate(userId, sessionId, action);
  }

  /** Every tab of everyone who may open the chat refreshes its session list (its order or title changed). */
  async changedFor(sessionId: string, ownerId: string): Promise<void> {
    const people = await this.deps.store.members.ids(sessionId, "see").catch(() => [ownerId]);
    for (const person of people.length > 0 ? people : [ownerId]) this.deps.onSessionsChanged(person);
  }

  list(userId: string): Promise<SessionSummary[]> {
    return this.deps.store.listSessions(userId);
  }

  /** The sidebar's chats a page at a time. */
  page(userId: string, before?: SessionCursor, limit: number = SESSION_PAGE_SIZE): Promise<SessionPage> {
    return this.deps.store.listSessionPage(userId, limit, before);
  }

  /** Search over one's own chats only. */
  search(userId: string, query: string, subagents = false): Promise<SearchResults> {
    return this.deps.store.searchSessions(userId, query, subagents);
  }

  async create(userId: string, title?: string): Promise<SessionSummary> {
    const session = await this.creates.run(userId, async () => {
      if ((await this.deps.store.countSessions(userId)) >= this.limits.chats) {
        throw new AppError(
          "limit_reached",
          `You have ${this.limits.chats} chats, the most one person can keep. Delete some to start a new one.`,
        );
      }
      return this.deps.store.createSession(userId, title);
    });
    this.deps.onSessionsChanged(userId);
    return session;
  }

  async rename(userId: string, sessionId: string, title: string): Promise<SessionSummary> {
    await this.gate(userId, sessionId, "rename");
    const session = await this.deps.store.renameSession(userId, sessionId, title);
    (await this.deps.registry.peek(sessionId))?.setTitle(title);
    await this.changedFor(sessionId, userId);
    return session;
  }

  /** Stops its turn, removes everything stored, and sends its viewers away. */
  async delete(userId: string, sessionId: string): Promise<void> {
    await this.gate(userId, sessionId, "delete");
    const people = await this.deps.store.members.ids(sessionId, "see");
    await this.deps.cluster?.stopElsewhere(sessionId);
    await this.deps.registry.delete(sessionId, () => this.deps.store.deleteSession(userId, sessionId));
    this.deps.onSessionDeleted(sessionId);
    for (const person of new Set([userId, ...people])) this.deps.onSessionsChanged(person);
  }

  /** See `DroneSession.join`: `subscribe` runs in the same step the state is read. */
  async join(
    userId: string,
    sessionId: string,
    lastSeq: number | undefined,
    subscribe?: (missed: SessionEvent[] | null, seq: number) => void,
  ): Promise<JoinResult> {
    return this.reads.run(userId, async () => (await this.open(userId, sessionId)).join(lastSeq, subscribe));
  }

  /** The page of turns before `before` (see `DroneSession.page`). */
  async older(userId: string, sessionId: string, before: string, limit: number = TURN_PAGE_SIZE): Promise<TurnPage> {
    const { turns, older } = await this.reads.run(userId, async () => (await this.open(userId, sessionId)).page(limit, before));
    return { sessionId, turns, older };
  }

  /** The models a person may pick (one, the runner's own, with no catalog). */
  async models(): Promise<ModelCatalog> {
    if (!this.deps.catalog) return { models: [], defaultKey: "", endpoints: [] };
    return this.deps.catalog.catalog();
  }

  /** A chat's settings in effect; without `sessionId`, those a new chat of `userId` starts with. */
  async settings(userId: string, sessionId?: string): Promise<ChatSettings> {
    // A member reads the chat as its owner set it.
    const ownerId = sessionId ? (await this.gate(userId, sessionId, "read")).ownerId : userId;
    return this.deps.chatSettings.settings(ownerId, sessionId);
  }

  /** Changes a chat's model (and so the person's default) or its instructions; the next turn runs with them. */
  async configure(userId: string, input: ChatSettingsInput): Promise<ChatSettings> {
    await this.gate(userId, input.sessionId, "settings");
    return this.deps.chatSettings.update(userId, input);
  }

  /**
   * `person`: whose caps the turn counts against (see `personKey`); the owner by default.
   * `choices.model`: the key the sender's picker showed, set on the chat first when it
   * differs; `attachments` the chat's files the prompt names; `budget` what the turn may spend.
   */
  async send(
    userId: string,
    sessionId: string,
    text: string,
    person = userId,
    choices: { model?: string; attachments?: readonly string[]; budget?: Budget } = {},
  ): Promise<{ turnId: string }> {
    const { model, attachments, budget } = choices;
    const access = await this.gate(userId, sessionId, "send");
    const session = await this.deps.registry.open(access.summary, access.ownerId);
    const attached = await resolvePromptAttachments(this.deps.store.attachments, sessionId, attachments);
    if (model !== undefined) await this.chooseModel(userId, access, model);
    const quota = await this.openQuota(person);
    this.checkAccepting();
    // Counted and claimed in one synchronous step (startTurn claims its slot before it awaits).
    this.checkRunningTurns(person);
    const turnId = await session.startTurn(text, this.starter(access.ownerId, person, quota, userId), {
      attachments: attached,
      ...(budget ? { budget } : {}),
    });
    await this.changedFor(sessionId, access.ownerId);
    return { turnId };
  }

  /** The owner's pick sets the chat's model; a member sends with the chat's model, and is told so if theirs differs. */
  private async chooseModel(userId: string, access: ChatAccess, model: string): Promise<void> {
    const sessionId = access.summary.sessionId;
    if (access.role === "owner") return this.deps.chatSettings.choose(userId, sessionId, model);
    const current = await this.deps.chatSettings.settings(access.ownerId, sessionId);
    if (current.model !== model) throw new AppError("forbidden", refusal(access.role, "settings"));
  }

  /** An edited prompt (`text`) or, without one, a regenerated answer: a new turn beside `turnId`, the old one kept. */
  async startBeside(
    userId: string,
    sessionId: string,
    turnId: string,
    text: string | undefined,
    person = userId,
    model?: string,
  ): Promise<{ turnId: string }> {
    const session = await this.open(userId, sessionId, "branch");
    if (model !== undefined) await this.deps.chatSettings.choose(userId, sessionId, model);
    const quota = await this.openQuota(person);
    this.checkAccepting();
    const started = await session.startBeside(turnId, text, this.starter(userId, person, quota), () => this.checkRunningTurns(person));
    await this.changedFor(sessionId, userId);
    return { turnId: started };
  }

  /** Shows another branch (the one holding `turnId`); answers as a join does, with a snapshot. */
  async switchBranch(
    userId: string,
    sessionId: string,
    turnId: string,
    subscribe?: (missed: SessionEvent[] | null, seq: number) => void,
  ): Promise<JoinResult> {
    return (await this.open(userId, sessionId, "branch")).switchTo(turnId, subscribe);
  }

  /** A new chat of `userId` holding the turns up to `turnId` of the branch in view: their panels, records and outputs. */
  async fork(userId: string, sessionId: string, turnId: string): Promise<SessionSummary> {
    const { summary } = await this.gate(userId, sessionId, "fork");
    const session = await this.open(userId, sessionId, "fork");
    const turns = await session.branchUpTo(turnId);
    const settings = await this.deps.store.chatSettings(sessionId);
    const exported: ExportedTurn[] = [];
    for await (const entry of exportedTurns(this.deps.store, sessionId, turns)) exported.push(entry);
    const file: SessionFile = {
      format: SESSION_FILE_FORMAT,
      version: SESSION_FILE_VERSION,
      exportedAt: new Date().toISOString(),
      session: { title: summary.title, createdAt: summary.createdAt, ...settings },
      turns: exported,
    };
    // The chat's attachments come along, copied inside the store (any of them may have been read by the copied turns' agents).
    const forked = await importSessionFile(
      this.deps.store,
      userId,
      file,
      (title) => this.create(userId, `Fork of ${title}`.slice(0, 200)),
      (to) => copyChatAttachments(this.deps.store.attachments, sessionId, to),
    );
    this.deps.onSessionsChanged(userId);
    return forked;
  }

  /**
   * A person's command on a chat's running turn (cancel, steer, kill, decide) or on a run
   * (retry). Ownership first; in a cluster, a turn another process runs gets it there (the
   * lease names the process) and its answer is ours; otherwise the local session acts. A
   * retry that starts a new turn has the same caps as a send.
   */
  command(userId: string, sessionId: string, command: RetryCommand, person?: string): Promise<RetryStarted>;
  command(userId: string, sessionId: string, command: Exclude<RunCommand, RetryCommand>): Promise<void>;
  async command(userId: string, sessionId: string, command: RunCommand, person = userId): Promise<RetryStarted | void> {
    const access = await this.gate(userId, sessionId, command.kind);
    const session = await this.deps.registry.open(access.summary, access.ownerId);
    const routed = await this.routed(session, command);
    if (command.kind !== "retry") {
      if (!routed) await session.command(command);
      return;
    }
    if (routed) {
      // The one answer the compiler cannot vouch for: another process's, over the wire.
      if (!routed.result) throw new Error("the process running the turn answered a retry without how it started");
      return routed.result;
    }
    // A retry inside the running turn counts against that turn's quota; one that starts a turn opens its own.
    const quota = session.runningTurnId ? undefined : await this.openQuota(person);
    this.checkAccepting();
    const started = await session.command(
      command,
      () => this.checkRunningTurns(person),
      this.starter(access.ownerId, person, quota, userId),
    );
    if (started.mode === "new_turn") await this.changedFor(sessionId, access.ownerId);
    return started;
  }

  /** The running-turn cap of this process, for a send and a retry that starts a turn. */
  private checkRunningTurns(person: string): void {
    if (this.deps.registry.runningTurns(person) >= this.limits.runningTurns) throw tooManyTurns(this.limits.runningTurns);
  }

  /** Who a new turn is for; scaled out, the chat's lease counts it against the cap in every process (see LeaseKeeper). */
  private starter(ownerId: string, person: string, quota?: SpendGate, sentBy: string = ownerId): TurnStarter {
    return { ownerId, person, sentBy, maxRunning: this.limits.runningTurns, ...(quota ? { quota } : {}) };
  }

  /** The gate of `person`'s quotas for a new turn; refuses (`limit_reached`, with when it resets) at a quota. */
  private async openQuota(person: string): Promise<SpendGate | undefined> {
    return this.deps.quotas?.open(person);
  }

  /**
   * Cluster: a command for a turn running in another process goes to that process (the
   * lease names it); its answer is ours. Undefined: no other process runs a turn here,
   * so the local session answers (running it, or `not_found`).
   */
  private async routed(session: DroneSession, command: RoutedCommand): Promise<{ result?: RetryStarted } | undefined> {
    if (!this.deps.cluster || session.runningTurnId) return undefined;
    const answer = await this.deps.cluster.route(session.sessionId, command);
    if (!answer.handled) return undefined;
    if (!answer.ok) throw new AppError(answer.code, answer.message);
    return { result: answer.result };
  }

  /** A stopping process starts no turn. */
  private checkAccepting(): void {
    if (!this.deps.registry.accepting) throw new AppError("unavailable", "This server is restarting; send again in a moment.");
  }

  /** The whole text of one tool output ("Show all"). */
  async toolOutput(userId: string, sessionId: string, callId: string, where: { turnId?: string; runId?: string | null }): Promise<string> {
    await this.gate(userId, sessionId, "read");
    return this.reads.run(userId, () => this.deps.store.loadToolOutput(sessionId, callId, where));
  }

  /** One turn's model requests, without their messages (the context inspector's list). */
  async modelCalls(userId: string, sessionId: string, turnId: string): Promise<ModelCallSummary[]> {
    await this.gate(userId, sessionId, "read");
    return this.deps.store.listModelCalls(sessionId, turnId);
  }

  /** One model request whole: every message as sent, the tools offered, and the reply. */
  async modelCall(userId: string, sessionId: string, callId: string): Promise<ModelCallRecord> {
    await this.gate(userId, sessionId, "read");
    return this.reads.run(userId, () => this.deps.store.loadModelCall(sessionId, callId));
  }

  /** The chat as a JSON session file or a Markdown transcript, streamed (finished turns only). */
  async export(userId: string, sessionId: string, format: ExportFormat, options: { markup?: boolean } = {}): Promise<SessionExport> {
    const { summary } = await this.gate(userId, sessionId, "export");
    // The slot is held until the download is written (or cut): its pieces are read as it goes.
    const release = await this.reads.acquire(userId);
    try {
      // The branch in view; an open chat's in-memory turns may be newer than what is stored yet.
      const turns = await (await this.open(userId, sessionId, "export")).history();
      const settings = await this.deps.store.chatSettings(sessionId);
      // Who did what, by name: the accounts the turns name (an identity without an account stays unnamed).
      const people = await this.deps.store.members.names(actorsOf(turns));
      const download = exportSession(this.deps.store, summary, turns, format, { ...options, settings, people });
      return { ...download, chunks: releasingChunks(download.chunks, release) };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** A session file as a new chat of `userId` (counted against their chats like any other). */
  async import(userId: string, text: string): Promise<SessionSummary> {
    const file = await checkSessionFileOffThread(text);
    const session = await importSessionFile(this.deps.store, userId, file, (title) => this.create(userId, title.slice(0, 200)));
    this.deps.onSessionsChanged(userId);
    return session;
  }

  private async open(userId: string, sessionId: string, action: ChatAction = "read"): Promise<DroneSession> {
    const access = await this.gate(userId, sessionId, action);
    return this.deps.registry.open(access.summary, access.ownerId);
  }
}
