import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import type { SessionEvent } from "@/lib/contracts";
import { serializeTurn } from "@/lib/markup/serialize";
import type { ChatStore } from "@/server/data/store";
import { parseTurnMarkup } from "@/test/support/markup/parse";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { recordedStream } from "@/test/support/turn/recorded-stream";
import { recordedStreamOptions } from "@/test/support/turn/stream-options";
import { replayRunner } from "@/test/support/sessions/replay-runner";
import { DroneSession } from "./drone-session";

/**
 * Nothing is lost, and live and replay converge, over random turns (nested subagents,
 * failures, kills, hostile text), through the real DroneSession and MongoDB: after every event the
 * server's fold equals the browser's state built from the relayed events; at random
 * pauses, and at the end, the turn rebuilt from MongoDB alone equals both; a viewer
 * that missed a stretch and rejoins by sequence number converges on it too; and the
 * `<SubagentExecution>` markup of every one of them round-trips. One reducer folds all of them.
 */

let db: TestDatabase;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("storage-convergence");
  store = db.store;
});
afterAll(() => db?.close());

describe("server fold, browser state, replay and the rebuild from MongoDB (property)", () => {
  it("agree after every event, at random pauses and at the end", async () => {
    await fc.assert(
      fc.asyncProperty(
        recordedStreamOptions,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (options, pauseAt, missAt) => {
          const stream = recordedStream(options);
          const events = stream.events;
          const { sessionId } = await store.createSession("owner-1");
          const relayed: SessionEvent[] = [];
          let browser: SessionState = initialSessionState(sessionId);
          let checked = 0;
          let turnId = "";

          const pauses = new Set(pauseAt.map((p) => Math.min(events.length - 1, Math.max(1, Math.floor(p * events.length)))));
          const checkStored = async () => {
            await drone.drain();
            const [stored] = await store.loadHistory(sessionId);
            expect(stored).toStrictEqual(drone.liveTurn(turnId));
            checked++;
          };
          const drone: DroneSession = await DroneSession.open({
            store,
            sessionId,
            title: "t",
            runner: replayRunner(events, { at: pauses, wait: checkStored }),
            flushMs: 5,
            relay: (event) => {
              relayed.push(event);
              browser = sessionReducer(browser, { type: "event", event });
              // The browser's state is the server's fold, after every single event.
              expect(browser.needsResync).toBe(false);
              expect(browser.turns[0]).toStrictEqual(drone.liveTurn(event.turnId));
            },
          });
          turnId = await drone.startTurn(stream.prompt);
          await drone.settled();
          await checkStored();
          expect(checked).toBe(pauses.size + 1);

          const final = drone.liveTurn(turnId)!;
          expect(final.status).toBe("completed");
          // The master's reasoning, step by step, is the recorded one (and below, the same after the rebuild and the replay).
          expect(final.steps.map((s) => s.thinking)).toStrictEqual(stream.expected.steps.map((s) => s.thinking));
          expect(parseTurnMarkup(serializeTurn(final))).toStrictEqual(final);

          // A viewer that saw the first events, then missed a stretch, rejoins by sequence number.
          const seen = Math.floor(missAt * relayed.length);
          let viewer: SessionState = initialSessionState(sessionId);
          for (const event of relayed.slice(0, seen)) viewer = sessionReducer(viewer, { type: "event", event });
          let missed: SessionEvent[] | null = null;
          const joined = await drone.join(viewer.seq, (events) => (missed = events));
          expect(joined.mode).toBe("replay");
          viewer = sessionReducer(viewer, { type: "joined", result: joined });
          for (const event of missed ?? []) viewer = sessionReducer(viewer, { type: "event", event });
          expect(viewer.turns).toStrictEqual([final]);
          expect(viewer.turns).toStrictEqual(await store.loadHistory(sessionId));
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
