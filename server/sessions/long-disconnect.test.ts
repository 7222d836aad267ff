import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import type { JoinResult } from "@/lib/contracts";
import { fakeRunner } from "@/test/support/turn/fake-runner";
import { openSession, recordEvents, request, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { REPLAY_LIMIT } from "./drone-session";
import type { TurnRunner } from "./turn-runner";

/**
 * A browser whose connection drops mid-stream (a laptop lid, a tunnel) and comes back
 * after the turn has ended. The server keeps the last REPLAY_LIMIT events: a browser that
 * missed fewer gets exactly the events it missed; one that missed more gets a snapshot.
 * The window is counted in events, so each case streams as many as it needs while the
 * browser is away, rather than waiting on a clock. Either way it ends on the stored turn.
 */

/** A stand-in for the runtime (no model runs): a subagent streams `before` tokens, waits for `resume`, streams `after` more and the turn ends. */
interface Script {
  before: number;
  after: number;
  resume: Promise<void>;
}
let script: Script;

function scriptedRunner(): TurnRunner {
  return fakeRunner(async ({ turnId, at, publish, startSubagent, stats }) => {
    const { before, after, resume } = script;
    const ref = startSubagent("watch");
    let sent = 0;
    const stream = async (count: number) => {
      for (const end = sent + count; sent < end; sent++) {
        publish({ type: "subagent_data", ...ref, data: { kind: "token", step: 0, offset: sent * 4, text: "tok " } });
        if (sent % 500 === 0) await new Promise((r) => setImmediate(r));
      }
    };
    await stream(before);
    await resume;
    await stream(after);
    publish({ type: "subagent_completed", ...ref, response: "tok ".repeat(sent), stats, endReason: "completed", endedAt: at });
    publish({
      type: "turn:data",
      turnId,
      runId: null,
      data: { kind: "tool_result", callId: "c1", response: "watched", responseSize: 7, status: "success" },
    });
    publish({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 1, offset: 0, text: "Done." } });
  });
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("longdrop", { runner: scriptedRunner() });
});
afterAll(async () => {
  await harness?.close();
});

/** Drops the connection after `before` events of the stream, lets `missed` more go by, rejoins with the last sequence number applied. */
async function dropAndRejoin(missed: number) {
  let resume: () => void = () => undefined;
  script = { before: 20, after: missed, resume: new Promise<void>((r) => (resume = r)) };
  const { cookie, socket, sessionId } = await openSession(harness);
  const seen = recordEvents(socket);
  const joined = await request(socket, "session:join", { sessionId });
  let state: SessionState = sessionReducer(initialSessionState(sessionId), {
    type: "joined",
    result: (joined as { data: JoinResult }).data,
  });
  await request(socket, "turn:send", { sessionId, text: "Stream while I am away" });
  await waitFor(() => seen.filter((e) => e.type === "subagent_data").length >= 20, 10_000, "the first tokens");

  socket.disconnect();
  for (const event of seen) state = sessionReducer(state, { type: "event", event });
  expect(state.turns[0]?.status).toBe("running");
  const lastSeq = state.seq;
  const session = (await harness.app.registry.peek(sessionId))!;
  resume();
  await session.settled();
  expect(session.currentSeq - lastSeq).toBeGreaterThanOrEqual(missed);

  const back = await harness.client(cookie);
  const replayed = recordEvents(back);
  let replayEnd: number | undefined;
  back.on("replay:complete", ({ seq }) => (replayEnd = seq));
  const rejoined = await request(back, "session:join", { sessionId, lastSeq });
  if (!rejoined.ok) throw new Error(rejoined.message);
  state = sessionReducer(state, { type: "joined", result: rejoined.data });
  if (rejoined.data.mode === "replay") await waitFor(() => replayEnd !== undefined, 10_000, "replay:complete");
  for (const event of replayed) state = sessionReducer(state, { type: "event", event });
  back.disconnect();

  expect(state.needsResync).toBe(false);
  expect(state.turns[0]?.status).toBe("completed");
  expect(state.turns).toStrictEqual(await harness.store.loadHistory(sessionId));
  return { mode: rejoined.data.mode, lastSeq, replayed: replayed.map((e) => e.seq), replayEnd, finalSeq: session.currentSeq };
}

describe("a connection dropped mid-stream", () => {
  it("that missed fewer events than the replay window gets exactly the events it missed, then replay:complete", async () => {
    const result = await dropAndRejoin(2_000);
    expect(result.mode).toBe("replay");
    const expected = Array.from({ length: result.finalSeq - result.lastSeq }, (_, k) => result.lastSeq + 1 + k);
    expect(result.replayed).toStrictEqual(expected);
    expect(result.replayEnd).toBe(result.finalSeq);
  }, 60_000);

  it("that missed more events than the replay window gets a snapshot of the stored turn", async () => {
    const result = await dropAndRejoin(REPLAY_LIMIT + 1);
    expect(result.mode).toBe("snapshot");
    expect(result.replayed).toHaveLength(0);
    expect(result.replayEnd).toBeUndefined();
  }, 120_000);
});
