import { io as connect } from "socket.io-client";
import { initialSessionState, sessionReducer, type SessionState } from "../../../lib/chat/session-state";
import type { ChatTurn, JoinResult, SessionEvent } from "../../../lib/contracts";
import { serializeTurn } from "../../../lib/markup/serialize";
import { createModels, initModels } from "../../../models";
import { openConnection } from "../../../server/db/connect";
import { mongoStore, type ChatStore } from "../../../server/data/store";
import { request, type LiveClient } from "../server/live-app";
import type { ClusterNode } from "./cluster";

/**
 * Socket clients of a cluster, seen as a browser sees them: each viewer folds what it
 * receives with the browser's own reducer (lib/chat/session-state.ts) in arrival order,
 * and can move to another process and rejoin with its last seq, as a reconnecting browser
 * behind a proxy does. Every wait is bounded and says, when it gives up, what it saw.
 */

/** A new person: the identity cookie any node hands out (all nodes share the secret). */
export async function newIdentity(node: ClusterNode): Promise<string> {
  const res = await fetch(`${node.baseUrl}/api/health`, { signal: AbortSignal.timeout(10_000) });
  await res.arrayBuffer();
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  if (!cookie) throw new Error(`node ${node.name} handed out no identity cookie`);
  return cookie;
}

export async function connectTo(node: ClusterNode, cookie: string): Promise<LiveClient> {
  const socket: LiveClient = connect(node.baseUrl, {
    transports: ["websocket"],
    extraHeaders: { cookie },
    reconnection: false,
    forceNew: true,
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`could not connect to node ${node.name} within 10 s`)), 10_000);
    socket.once("connect", () => (clearTimeout(timer), resolve()));
    socket.once("connect_error", (error) => (clearTimeout(timer), reject(error)));
  });
  return socket;
}

/** Creates a chat through `node` for the person `cookie`, and returns its id. */
export async function createChat(node: ClusterNode, cookie: string): Promise<string> {
  const socket = await connectTo(node, cookie);
  try {
    const created = await request(socket, "session:create", {});
    if (!created.ok) throw new Error(`session:create on node ${node.name}: ${created.message}`);
    return created.data.sessionId;
  } finally {
    socket.disconnect();
  }
}

export interface Viewer {
  readonly label: string;
  readonly sessionId: string;
  readonly node: ClusterNode;
  readonly socket: LiveClient;
  /** Every event received, in arrival order, across the sockets this viewer had. */
  readonly events: SessionEvent[];
  /** When each of `events` arrived (performance.now()). */
  readonly arrivals: number[];
  /** Seqs a snapshot join covered (a snapshot replaces what the events before it built). */
  readonly snapshotSeqs: number[];
  /** Snapshot joins it made on its own after seeing a gap, as the browser does. */
  readonly resyncs: number;
  readonly disconnected: boolean;
  state(): SessionState;
  /** Joins (again) on its socket: with its last seq, or fresh for a snapshot when it saw a gap. */
  join(): Promise<JoinResult>;
  /** Leaves its process for `node` (a new socket, same person) and rejoins there with its last seq. */
  moveTo(node: ClusterNode): Promise<JoinResult>;
  /** Where it is and what it had: for a failure's message. */
  describe(): string;
  /** Asks for a snapshot if a gap stands and no join is under way (the browser's effect does the same). */
  resyncIfNeeded(): void;
  /** Waits until `done(state)` holds; throws after `timeoutMs` saying what it was waiting for and what it had. */
  waitFor(what: string, done: (state: SessionState, events: SessionEvent[]) => boolean, timeoutMs: number): Promise<void>;
  close(): void;
}

export async function openViewer(node: ClusterNode, cookie: string, sessionId: string, label = `viewer on ${node.name}`): Promise<Viewer> {
  let state = initialSessionState(sessionId);
  let socket = await connectTo(node, cookie);
  let current = node;
  let disconnected = false;
  const events: SessionEvent[] = [];
  const arrivals: number[] = [];
  const snapshotSeqs: number[] = [];
  let joining: Promise<JoinResult> | undefined;
  let resyncs = 0;
  /** What its joins and replays did, for a failing wait's message. */
  const notes: string[] = [];
  const note = (text: string) => {
    notes.push(text);
    if (notes.length > 8) notes.shift();
  };
  const wiring = (s: LiveClient) => {
    s.on("agent:event", (event) => {
      if (s !== socket) return;
      events.push(event);
      arrivals.push(performance.now());
      state = sessionReducer(state, { type: "event", event });
      // What components/chat/use-session.ts does: a gap asks for a snapshot at once.
      if (state.needsResync && !joining) resync(`gap at #${event.seq}`);
    });
    s.on("replay:complete", (info) => {
      if (s !== socket) return;
      state = sessionReducer(state, { type: "replay:complete", ...info });
      note(`replay:complete #${info.seq}`);
      if (state.needsResync && !joining) resync(`replay ended at #${info.seq}, past #${state.seq}`);
    });
    s.on("disconnect", () => {
      if (s === socket) disconnected = true;
    });
  };
  wiring(socket);

  const joinOnce = async (): Promise<JoinResult> => {
    const fresh = state.needsResync || state.seq === 0;
    const ack = await request(socket, "session:join", fresh ? { sessionId } : { sessionId, lastSeq: state.seq });
    if (!ack.ok) throw new Error(`${label}: session:join on node ${current.name} refused: ${ack.code} ${ack.message}`);
    note(`join${fresh ? "" : ` from #${state.seq}`}: ${ack.data.mode} #${ack.data.seq}`);
    if (ack.data.mode === "snapshot") snapshotSeqs.push(ack.data.seq);
    state = sessionReducer(state, { type: "joined", result: ack.data });
    return ack.data;
  };
  /** What components/chat/use-session.ts does: a gap asks for a snapshot at once. */
  const resync = (why: string) => {
    resyncs++;
    note(`resync (${why})`);
    void join().catch((error: unknown) => note(`join failed: ${error instanceof Error ? error.message : String(error)}`));
  };
  /** One join at a time on a socket (a gap seen while joining waits for that join). */
  const join = (): Promise<JoinResult> => {
    if (joining) return joining;
    const attempt: Promise<JoinResult> = joinOnce().finally(() => {
      if (joining === attempt) joining = undefined;
    });
    joining = attempt;
    return attempt;
  };

  const viewer: Viewer = {
    get label() {
      return label;
    },
    sessionId,
    get node() {
      return current;
    },
    get socket() {
      return socket;
    },
    events,
    arrivals,
    snapshotSeqs,
    get disconnected() {
      return disconnected;
    },
    get resyncs() {
      return resyncs;
    },
    state: () => state,
    join,
    async moveTo(next) {
      socket.disconnect();
      socket = await connectTo(next, cookie);
      current = next;
      disconnected = false;
      wiring(socket);
      // A join still waiting on the old socket will never be answered: start afresh.
      joining = undefined;
      return join();
    },
    describe() {
      const last = events.at(-1);
      return `node ${current.name}${disconnected ? " (disconnected)" : ""}, ${events.length} events, seq ${state.seq}${state.needsResync ? " (gap seen)" : ""}${joining ? ", joining" : ""}, last ${last ? `${last.type} #${last.seq}` : "none"}; turns: ${describeTurns(state.turns)}; joins: ${notes.join("; ") || "none"}`;
    },
    resyncIfNeeded() {
      if (state.needsResync && !joining && !disconnected) resync("gap still open");
    },
    async waitFor(what, done, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!done(state, events)) {
        viewer.resyncIfNeeded();
        if (Date.now() > deadline) throw new Error(`${label}: no ${what} within ${timeoutMs} ms; ${viewer.describe()}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => socket.disconnect(),
  };
  await join();
  return viewer;
}

export function describeTurns(turns: readonly ChatTurn[]): string {
  if (turns.length === 0) return "none";
  return turns.map((t) => `${t.status}${t.error ? ` (${t.error})` : ""}`).join(", ");
}

/** The newest turn has ended (not running), as this state shows it. */
export const lastTurnEnded = (state: SessionState): boolean => {
  const turn = state.turns.at(-1);
  return turn !== undefined && turn.status !== "running";
};

type SubagentProcess = NonNullable<ChatTurn["steps"][number]["toolCalls"][number]["subagent"]>;

/** Every subagent of a turn (nested ones too), in the order they were called. */
export function runsOf(turn: ChatTurn | undefined): SubagentProcess[] {
  const out: SubagentProcess[] = [];
  const visit = (steps: ChatTurn["steps"]) => {
    for (const step of steps) {
      for (const call of step.toolCalls) {
        if (!call.subagent) continue;
        out.push(call.subagent);
        visit(call.subagent.steps);
      }
    }
  };
  visit(turn?.steps ?? []);
  return out;
}

/**
 * Seq trouble in what one viewer received: events it got twice, and events of the session
 * (`published`: every seq any of its viewers received) it neither received nor had in a
 * snapshot. Sequence numbers may jump (each process numbers from its own reserved block),
 * so a hole between two numbers is not a loss; an event someone else got is.
 */
export function seqIntegrity(
  viewer: Pick<Viewer, "events" | "snapshotSeqs">,
  published: Iterable<number>,
): { duplicated: number; lost: number } {
  const seen = new Set<number>();
  let duplicated = 0;
  for (const e of viewer.events) {
    if (seen.has(e.seq)) duplicated++;
    seen.add(e.seq);
  }
  const covered = Math.max(0, ...viewer.snapshotSeqs);
  let lost = 0;
  for (const s of published) if (s > covered && !seen.has(s)) lost++;
  return { duplicated, lost };
}

/** Every seq received by any of `viewers` (one session's). */
export function publishedSeqs(viewers: readonly Pick<Viewer, "events">[]): Set<number> {
  return new Set(viewers.flatMap((v) => v.events.map((e) => e.seq)));
}

/** The database as a reload sees it, read directly (no app process in between). */
export interface StoredView {
  store: ChatStore;
  /** The session's turns as stored in MongoDB. */
  turns(sessionId: string): Promise<ChatTurn[]>;
  /**
   * Waits until what is stored equals the viewer's turns (the writes trail the relay a
   * little, and a viewer may still be taking the last events in), and returns the difference
   * left after `timeoutMs` (null when equal). `viewer` is read afresh on every look.
   */
  converged(viewer: () => SessionState, timeoutMs?: number): Promise<string | null>;
  close(): Promise<void>;
}

export async function openStoredView(mongoUri: string): Promise<StoredView> {
  const connection = await openConnection(mongoUri);
  const models = createModels(connection);
  await initModels(models);
  const store = mongoStore(models);
  const turns = (sessionId: string) => store.loadHistory(sessionId);
  return {
    store,
    turns,
    async converged(viewer, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const state = viewer();
        const mine = state.turns.map(serializeTurn);
        const stored = await turns(state.sessionId);
        const theirs = stored.map(serializeTurn);
        if (!state.needsResync && JSON.stringify(mine) === JSON.stringify(theirs)) return null;
        if (Date.now() > deadline) {
          if (state.needsResync) return "the viewer saw a gap and never resynced";
          if (mine.length !== theirs.length)
            return `the viewer holds ${mine.length} turns, the database ${theirs.length} (viewer: ${describeTurns(state.turns)}; stored: ${describeTurns(stored)})`;
          const at = mine.findIndex((m, i) => m !== theirs[i]);
          const a = mine[at]!;
          const b = theirs[at]!;
          let k = 0;
          while (k < a.length && a[k] === b[k]) k++;
          return `turn ${at} differs at character ${k}: viewer …${a.slice(Math.max(0, k - 60), k + 80)}… stored …${b.slice(Math.max(0, k - 60), k + 80)}… (viewer: ${describeTurns(state.turns)}; stored: ${describeTurns(stored)})`;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    close: () => connection.close(),
  };
}
