import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatTurn, SessionEvent } from "@/lib/contracts";
import type { ChatStore } from "@/server/data/store";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { fakeRunner } from "@/test/support/turn/fake-runner";
import { DroneSession } from "./drone-session";

/**
 * DroneSession folds streamed text in batches (when the turn is next read), not per
 * token. Whoever reads it mid-stream — a browser joining, the writer to MongoDB — must
 * still get every token relayed before the read: these read at points where no fold
 * has run since thousands of tokens (more than one batch) went out.
 */

let db: TestDatabase;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("batched-fold");
  store = db.store;
});
afterAll(() => db?.close());

/** A turn whose subagent streams `tokens` tokens (answer and reasoning, steps 0 and 1), calling `check` after each stretch of `every`. */
async function streamWithChecks(
  tokens: number,
  every: number,
  check: (drone: DroneSession, runnerTurn: ChatTurn, relayed: SessionEvent[]) => Promise<void>,
) {
  const { sessionId } = await store.createSession("owner-1");
  const relayed: SessionEvent[] = [];
  let checks = 0;
  let drone: DroneSession | undefined;
  const runner = fakeRunner(async (turn) => {
    const ref = turn.startSubagent("stream");
    const offsets = [0, 0, 0];
    for (let i = 0; i < tokens; i++) {
      const step = i < tokens / 2 ? 0 : 1;
      const kind = i % 7 === 3 ? "thinking" : "token";
      const slot = kind === "thinking" ? 2 : step;
      const text = `w${i} `;
      turn.publish({ type: "subagent_data", ...ref, data: { kind, step, offset: offsets[slot]!, text } });
      offsets[slot]! += text.length;
      if (i % 10 === 9)
        turn.publish({
          type: "turn:data",
          turnId: turn.turnId,
          runId: null,
          data: { kind: "token", step: 0, offset: (i - 9) / 10, text: "." },
        });
      if ((i + 1) % every === 0) {
        await check(drone!, turn.turn(), relayed);
        checks++;
      }
    }
    turn.publish({ type: "subagent_completed", ...ref, response: "done", stats: turn.stats, endReason: "completed", endedAt: turn.at });
    turn.publish({
      type: "turn:data",
      turnId: turn.turnId,
      runId: null,
      data: { kind: "tool_result", callId: "c1", response: "done", responseSize: 4, status: "success" },
    });
  });
  drone = await DroneSession.open({ store, sessionId, title: "t", runner, relay: (event) => relayed.push(event), flushMs: 5 });
  const turnId = await drone.startTurn("go");
  await drone.settled();
  const [stored] = await store.loadHistory(sessionId);
  expect(stored).toStrictEqual(drone.liveTurn(turnId));
  return { checks };
}

describe("text folded in batches", () => {
  it("a browser joining mid-stream gets a snapshot holding every token relayed before it", async () => {
    const { checks } = await streamWithChecks(6_000, 2_500, async (drone, runnerTurn, relayed) => {
      let at: number | undefined;
      const joined = await drone.join(undefined, (_missed, seq) => (at = seq));
      if (joined.mode !== "snapshot") throw new Error("expected a snapshot");
      expect(at).toBe(relayed.at(-1)!.seq);
      expect(joined.turns.at(-1)).toStrictEqual(runnerTurn);
    });
    expect(checks).toBe(2);
  }, 60_000);

  it("what MongoDB holds once written is every token relayed before, mid-stream as at the end", async () => {
    const { checks } = await streamWithChecks(6_000, 2_500, async (drone, runnerTurn) => {
      await drone.drain();
      const [stored] = await store.loadHistory(runnerTurn.sessionId);
      expect(stored).toStrictEqual(runnerTurn);
    });
    expect(checks).toBe(2);
  }, 60_000);
});
