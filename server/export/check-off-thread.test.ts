import { describe, expect, it } from "vitest";
import { emptyStats, MAX_IMPORT_TOOL_CALLS, type ChatTurn } from "@/lib/contracts";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type SessionFile } from "@/lib/export/session-file";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { checkSessionFileOffThread } from "@/server/export/check-off-thread";
import { parseSessionFile } from "@/server/export/session-import";

/**
 * An imported file is checked on a worker thread: the server's own thread goes on with
 * other work meanwhile, and the answer is the one the check gives in place.
 */

function fileOf(callsInOneStep: number): string {
  const at = "2026-01-01T00:00:00.000Z";
  const started = newTurn({ sessionId: "s0", turnId: "t0", prompt: "Look everywhere", createdAt: at });
  const plain = { name: "grep", parameters: "{}", response: "ok", responseSize: 2, status: "success" as const };
  const turn: ChatTurn = {
    ...applyEvent(started, { type: "turn:ended", turnId: "t0", status: "completed", stats: emptyStats(), endedAt: at }),
    steps: [{ text: "", thinking: "", toolCalls: Array.from({ length: callsInOneStep }, (_, i) => ({ ...plain, callId: `c${i}` })) }],
  };
  const file: SessionFile = {
    format: SESSION_FILE_FORMAT,
    version: SESSION_FILE_VERSION,
    exportedAt: at,
    session: { title: "Many calls", createdAt: at },
    turns: [{ turn, toolOutputs: [], modelCalls: [] }],
  };
  return JSON.stringify(file);
}

describe("checking an imported file off the server's thread", () => {
  it("refuses a step of 48,000 calls as the check in place does, while this thread runs other work before the answer", async () => {
    const text = fileOf(48_000);
    const inPlace = await parseSessionFile(text).catch((error: Error) => error.message);
    expect(inPlace).toBe(
      `The file holds 48000 tool calls; an import takes at most ${MAX_IMPORT_TOOL_CALLS}. Split the chat, or export fewer turns.`,
    );

    let settled = false;
    const answer = checkSessionFileOffThread(text).then(
      () => "imported",
      (error: Error) => error.message,
    );
    void answer.then(() => (settled = true));
    // In place, the parse and the refusal happen before this call returns; on a worker
    // the thread is free at once, and its next turn comes before the worker's answer.
    const freeBeforeAnswer = await new Promise<boolean>((resolve) => setImmediate(() => resolve(!settled)));
    expect(freeBeforeAnswer).toBe(true);
    expect(await answer).toBe(inPlace);
  });

  it("hands back a file that checks exactly as the check in place reads it", async () => {
    const text = fileOf(3);
    expect(await checkSessionFileOffThread(text)).toEqual(await parseSessionFile(text));
  });

  it("refuses what is not JSON with the same clear error", async () => {
    await expect(checkSessionFileOffThread("{ nope")).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/^The file is not valid JSON/),
    });
  });
});
