import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyStats, MAX_IMPORT_TOOL_CALLS, MAX_TOOL_CALLS_PER_STEP, type ChatTurn, type ModelCallRecord } from "@/lib/contracts";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type SessionFile } from "@/lib/export/session-file";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { importSessionFile, parseSessionFile } from "@/server/export/session-import";
import { modelCallRecord } from "@/test/support/model/model-call-record";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";

/**
 * A session file with a part over MongoDB's 16 MiB document limit (an 18 MB model
 * request: the import limit is 100 MB) is refused with an error naming the part before
 * anything is stored, and one that gets past that check anyway is rolled back within
 * seconds, rather than hanging on a write the database will never take.
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase("oversized-import");
});
afterAll(async () => {
  await db?.close();
});

const HUGE = "x".repeat(18 * 1024 * 1024);

function fileWithHugeModelCall(): SessionFile {
  const at = new Date().toISOString();
  const started = newTurn({ sessionId: "s0", turnId: "t0", prompt: "Summarise the dump", createdAt: at });
  const turn = applyEvent(started, { type: "turn:ended", turnId: "t0", status: "completed", stats: emptyStats(), endedAt: at });
  const record: ModelCallRecord = modelCallRecord({ content: "Summarise the dump", text: HUGE });
  return {
    format: SESSION_FILE_FORMAT,
    version: SESSION_FILE_VERSION,
    exportedAt: at,
    session: { title: "Big", createdAt: at },
    turns: [{ turn, toolOutputs: [], modelCalls: [record] }],
  };
}

describe("importing a file with a part over the document limit", () => {
  it("is refused up front with an error naming the turn and the part", async () => {
    await expect(parseSessionFile(JSON.stringify(fileWithHugeModelCall()))).rejects.toThrow(
      /Turn 1 in the file has model request 1 \(response text\) of 18\.0 MB/,
    );
  });

  it("past that check, answers a clear error within seconds and leaves no chat behind", async () => {
    const ownerId = "owner-big";
    const started = Date.now();
    const imported = importSessionFile(db.store, ownerId, fileWithHugeModelCall(), (title) => db.store.createSession(ownerId, title));
    await expect(imported).rejects.toThrow(/refused part of the file .*1 model request/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await db.store.listSessions(ownerId)).toEqual([]);
    expect(await db.models.Turn.countDocuments({})).toBe(0);
    expect(await db.models.ModelCall.countDocuments({})).toBe(0);
  }, 20_000);
});

describe("importing a file of more tool calls than an import takes", () => {
  it("is refused up front, counting them, before any turn is replayed", async () => {
    const at = new Date().toISOString();
    const started = newTurn({ sessionId: "s0", turnId: "t0", prompt: "Look everywhere", createdAt: at });
    const plain = { name: "grep", parameters: "{}", response: "ok", responseSize: 2, status: "success" as const };
    const steps = MAX_IMPORT_TOOL_CALLS / MAX_TOOL_CALLS_PER_STEP + 1;
    // Full steps of plain calls: every step is within its own bound, only the sum is over.
    const turn: ChatTurn = {
      ...applyEvent(started, { type: "turn:ended", turnId: "t0", status: "completed", stats: emptyStats(), endedAt: at }),
      steps: Array.from({ length: steps }, (_, s) => ({
        text: "",
        thinking: "",
        toolCalls: Array.from({ length: MAX_TOOL_CALLS_PER_STEP }, (_, i) => ({ ...plain, callId: `c${s}_${i}` })),
      })),
    };
    const file: SessionFile = {
      format: SESSION_FILE_FORMAT,
      version: SESSION_FILE_VERSION,
      exportedAt: at,
      session: { title: "Many calls", createdAt: at },
      turns: [{ turn, toolOutputs: [], modelCalls: [] }],
    };
    await expect(parseSessionFile(JSON.stringify(file))).rejects.toThrow(
      `The file holds ${steps * MAX_TOOL_CALLS_PER_STEP} tool calls; an import takes at most ${MAX_IMPORT_TOOL_CALLS}.`,
    );
  });
});
