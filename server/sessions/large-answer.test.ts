import mongoose from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TurnInput, TurnResult } from "@/lib/agent/runtime";
import { emptyStats, type AgentEvent } from "@/lib/contracts";
import { applyEvent, turnFromStart } from "@/lib/turn/reduce";
import type { Models } from "@/models";
import type { ChatStore } from "@/server/data/store";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { DroneSession } from "./drone-session";
import type { TurnRunner } from "./turn-runner";

/**
 * A 21 MB answer — the master's, and a subagent's reasoning and answer — is stored
 * whole: in chunks beside its documents (none near the 16 MB BSON limit), written as it
 * streams, and a reload gets every character back. It used to stay "running" with 16 of
 * its 21 million characters, and show "failed" after a restart.
 */

const ANSWER_CHARS = 21_000_000;
const PIECE = "0123456789abcdefghij".repeat(5_000); // 100,000 characters

let db: TestDatabase;
let models: Models;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("large-answer");
  ({ models, store } = db);
});
afterAll(() => db?.close());

/** A stand-in for the runtime (no model runs) that streams a huge master answer and a huge subagent. */
function hugeTurnRunner(): TurnRunner {
  return {
    startTurn(input: TurnInput) {
      const done = (async (): Promise<TurnResult> => {
        const { turnId } = input;
        const at = new Date().toISOString();
        const ref = { turnId, runId: `${turnId}-r1`, parentRunId: null, depth: 1 };
        const events: AgentEvent[] = [
          { type: "turn:started", turnId, prompt: input.prompt, createdAt: at },
          {
            type: "turn:data",
            turnId,
            runId: null,
            data: { kind: "tool_call", step: 0, callId: "c1", name: "subagent", parameters: "{}" },
          },
          { type: "subagent_started", ...ref, callId: "c1", name: "explore", task: "t", prompt: "p", startedAt: at },
        ];
        let turn = turnFromStart(events[0] as Extract<AgentEvent, { type: "turn:started" }>, input.sessionId);
        const publish = (event: AgentEvent) => {
          turn = event.type === "turn:started" ? turn : applyEvent(turn, event);
          input.publish(event);
        };
        events.forEach(publish);
        for (let offset = 0; offset < ANSWER_CHARS; offset += PIECE.length) {
          publish({ type: "subagent_data", ...ref, data: { kind: "thinking", step: 0, offset, text: PIECE } });
          publish({ type: "subagent_data", ...ref, data: { kind: "token", step: 0, offset, text: PIECE } });
          publish({ type: "turn:data", turnId, runId: null, data: { kind: "token", step: 1, offset, text: PIECE } });
          // Let the writer flush while the text grows, as it does while a model streams.
          if (offset % 2_000_000 === 0) await new Promise((r) => setTimeout(r, 10));
        }
        const stats = emptyStats();
        publish({
          type: "subagent_completed",
          ...ref,
          response: PIECE.repeat(ANSWER_CHARS / PIECE.length),
          stats,
          endReason: "completed",
          endedAt: at,
        });
        publish({
          type: "turn:data",
          turnId,
          runId: null,
          data: { kind: "tool_result", callId: "c1", response: "clean", responseSize: 5, status: "success" },
        });
        publish({ type: "turn:ended", turnId, status: "completed", stats, endedAt: at });
        return { status: "completed", stats, turn };
      })();
      return { done, cancel: () => undefined, steer: () => ({ ok: false, message: "n/a" }), kill: () => ({ ok: false, message: "n/a" }) };
    },
  };
}

describe("a 21 MB answer", () => {
  it("is stored whole in chunks, no document near the BSON limit, and reloads exactly", async () => {
    const { sessionId } = await store.createSession("owner-1");
    const drone = await DroneSession.open({ store, sessionId, title: "t", runner: hugeTurnRunner(), relay: () => undefined, flushMs: 20 });
    const turnId = await drone.startTurn("write a lot");
    await drone.settled();

    const live = drone.liveTurn(turnId)!;
    expect(live.status).toBe("completed");
    expect(live.steps[1]!.text).toHaveLength(ANSWER_CHARS);
    const [stored] = await store.loadHistory(sessionId);
    expect(stored!.steps[1]!.text.length).toBe(ANSWER_CHARS);
    expect(stored).toStrictEqual(live);

    let largest = 0;
    for (const model of [models.Turn, models.SubagentRun, models.TextChunk]) {
      for (const doc of await (model as typeof models.Turn).find({ sessionId }).lean())
        largest = Math.max(largest, mongoose.mongo.BSON.calculateObjectSize(doc));
    }
    expect(largest).toBeLessThan(4 * 1024 * 1024);
  }, 120_000);
});
