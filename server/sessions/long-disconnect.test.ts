import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialSessionState, sessionReducer } from "@/lib/chat/session-state";
import type { JoinResult, SessionEvent } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * A browser whose connection drops mid-stream and comes back two minutes later (a laptop
 * lid, a tunnel): its rejoin with the last sequence number it applied brings it to exactly
 * the stored state, although the turn ended while it was away. Real time, on purpose.
 */
const AWAY_MS = 2 * 60_000;
let harness: Harness;

beforeAll(async () => {
  harness = await startHarness("longdrop", { runner: runtimeWith(createDemoModel({ chunkDelayMs: 20 })) });
});
afterAll(async () => {
  await harness?.close();
});

describe("a connection dropped for two minutes", () => {
  it("catches up on rejoin and converges on the stored turn", { timeout: AWAY_MS + 90_000 }, async () => {
    const { cookie, socket, sessionId } = await openSession(harness);
    const seen = recordEvents(socket);
    const joined = await request(socket, "session:join", { sessionId });
    let state = sessionReducer(initialSessionState(sessionId), { type: "joined", result: (joined as { data: JoinResult }).data });
    await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" });
    await waitFor(() => seen.some((e) => e.type === "subagent_data"), 10_000, "subagent activity");

    socket.disconnect();
    for (const event of seen) state = sessionReducer(state, { type: "event", event });
    expect(state.turns[0]?.status).toBe("running");
    await new Promise((r) => setTimeout(r, AWAY_MS));

    const back = await harness.client(cookie);
    const missed = recordEvents(back);
    let replayed = false;
    back.on("replay:complete", () => (replayed = true));
    const rejoined = await request(back, "session:join", { sessionId, lastSeq: state.seq });
    if (!rejoined.ok) throw new Error(rejoined.message);
    state = sessionReducer(state, { type: "joined", result: rejoined.data });
    if (rejoined.data.mode === "replay") await waitFor(() => replayed, 10_000, "replay:complete");
    for (const event of missed as SessionEvent[]) state = sessionReducer(state, { type: "event", event });

    expect(state.needsResync).toBe(false);
    expect(state.turns[0]?.status).toBe("completed");
    const stored = await (await harness.app.registry.peek(sessionId))!.history();
    expect(state.turns).toStrictEqual(stored);
  });
});
