import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { openSession, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * A delete that races sends: sends keep arriving while the chat is deleted. Once the
 * delete is acknowledged nothing of the chat may run or remain — no turn still going
 * (it could no longer be cancelled), no turn, call or run left in MongoDB — and a send
 * after it is refused like one for a chat that never existed.
 */

let harness: Harness;
beforeAll(async () => {
  // The sender sends as fast as it is answered, far past a person's command rate: the limits
  // are lifted so that what is refused is refused for the delete, never for the pace.
  const unlimited = { burst: 1_000_000, perSecond: 1_000_000 };
  harness = await startHarness("delete-race", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 5 })),
    rateLimit: unlimited,
    personRateLimit: unlimited,
  });
});
afterAll(async () => {
  await harness?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("session:delete while sends keep arriving", () => {
  it("stops and removes everything, in every round, and refuses sends after it", async () => {
    const cookie = await harness.newCookie();
    let startedDuringDelete = 0;
    for (let round = 0; round < 8; round++) {
      const { socket, sessionId } = await openSession(harness, cookie);
      const sender = await harness.client(cookie);
      let sending = true;
      const answers: string[] = [];
      const sends = (async () => {
        while (sending) {
          const ack = await request(sender, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
          answers.push(ack.ok ? "ok" : ack.code);
          await sleep(2);
        }
      })();
      // The delete lands after a different number of sends each round, with one in flight.
      await waitFor(() => answers.length > round % 4, 20_000, "sends to be answered");
      const open = harness.app.registry.peekReady(sessionId);
      const deleted = await request(socket, "session:delete", { sessionId });
      expect(deleted).toMatchObject({ ok: true });
      sending = false;
      await sends;
      startedDuringDelete += answers.filter((a) => a === "ok").length;

      // Nothing runs and nothing is left, also once everything the chat had queued is written.
      await open?.settled();
      expect(await harness.app.registry.peek(sessionId)).toBeUndefined();
      const left = await Promise.all([
        harness.models.Turn.countDocuments({ sessionId }),
        harness.models.ToolCall.countDocuments({ sessionId }),
        harness.models.SubagentRun.countDocuments({ sessionId }),
        harness.models.ToolOutput.countDocuments({ sessionId }),
      ]);
      expect(left).toEqual([0, 0, 0, 0]);
      expect(await request(sender, "turn:send", { sessionId, text: "still there?" })).toMatchObject({ ok: false, code: "not_found" });
      sender.disconnect();
      socket.disconnect();
    }
    // The race was real: turns did start in the rounds before their delete stopped them.
    expect(startedDuringDelete).toBeGreaterThan(0);
  }, 60_000);
});
