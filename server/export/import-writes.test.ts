import type { Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyStats, MAX_TOOL_CALLS_PER_STEP, type AgentEvent, type ChatTurn } from "@/lib/contracts";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type SessionFile } from "@/lib/export/session-file";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import type { Models } from "@/models";
import { STORABLE_DOCUMENT_BYTES } from "@/server/data/document-size";
import type { ChatStore } from "@/server/data/store";
import { importSessionFile } from "@/server/export/session-import";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { countCommands } from "@/test/support/server/write-meter";
import { ev } from "@/test/support/turn/event-builders";

/**
 * An import writes its tool calls in batches: a file of thousands of calls is a handful
 * of inserts, not an insert and an update per call, and reads back as the file's turn. A
 * call the database cannot store fails the whole import, which leaves no chat behind.
 */
let db: TestDatabase;
let connection: Connection;
let models: Models;
let store: ChatStore;
beforeAll(async () => {
  db = await openTestDatabase("import-writes", { monitorCommands: true });
  ({ connection, models, store } = db);
});
afterAll(() => db?.close());

/** A finished turn of `steps` steps of `calls` calls each, every call answered. */
function turnWithCalls(steps: number, calls: number, parametersOf = (_step: number, _i: number) => "{}"): ChatTurn {
  const at = "2026-01-01T00:00:00.000Z";
  let turn = newTurn({ sessionId: "s0", turnId: "t1", prompt: "Look everywhere", createdAt: at });
  for (let step = 0; step < steps; step++)
    for (let i = 0; i < calls; i++) {
      const callId = `c${step}_${i}`;
      const events: AgentEvent[] = [
        ev.master({ kind: "tool_call", step, callId, name: "grep", parameters: parametersOf(step, i) }),
        ev.master({ kind: "tool_result", callId, response: `ok ${callId}`, responseSize: 3 + callId.length, status: "success" }),
      ];
      for (const event of events) turn = applyEvent(turn, event);
    }
  return applyEvent(turn, { type: "turn:ended", turnId: "t1", status: "completed", stats: emptyStats(), endedAt: at });
}

function fileOf(turn: ChatTurn): SessionFile {
  const at = new Date().toISOString();
  return {
    format: SESSION_FILE_FORMAT,
    version: SESSION_FILE_VERSION,
    exportedAt: at,
    session: { title: "Many calls", createdAt: at },
    turns: [{ turn, toolOutputs: [], modelCalls: [] }],
  };
}

describe("importing a file of many tool calls", () => {
  it("writes them in a handful of inserts and hardly an update, and the chat reads back as the file's turn", async () => {
    const turn = turnWithCalls(3, MAX_TOOL_CALLS_PER_STEP);
    const { counts: commands, stop } = countCommands(connection, "toolcalls");
    const ownerId = "owner-many";
    const session = await importSessionFile(store, ownerId, fileOf(turn), (title) => store.createSession(ownerId, title)).finally(stop);

    // An insert and an update per call before: 6,000 round trips. A result is an update of
    // its own only where a slice of the import ends between its call and it.
    expect(commands.insert).toBeLessThanOrEqual(30);
    expect(commands.update ?? 0).toBeLessThanOrEqual(5);
    const [stored] = await store.loadHistory(session.sessionId);
    expect(stored!.steps.map((s) => s.toolCalls.length)).toEqual([1_000, 1_000, 1_000]);
    expect({ ...stored!, sessionId: "s0", turnId: "t1" }).toStrictEqual(turn);
    // Indexed for search as it was written.
    const { hits } = await store.searchSessions(ownerId, "everywhere");
    expect(hits.map((hit) => [hit.session.sessionId, hit.turnId])).toEqual([[session.sessionId, stored!.turnId]]);
  }, 60_000);

  it("with one call too large for its document (past the file's check) is refused, counting it, and leaves no chat", async () => {
    const huge = "x".repeat(STORABLE_DOCUMENT_BYTES + 1);
    const turn = turnWithCalls(1, 20, (_step, i) => (i === 7 ? huge : "{}"));
    const ownerId = "owner-huge-call";
    let sessionId = "";
    const imported = importSessionFile(store, ownerId, fileOf(turn), async (title) => {
      const session = await store.createSession(ownerId, title);
      sessionId = session.sessionId;
      return session;
    });
    await expect(imported).rejects.toThrow(/refused part of the file \(1 event write\(s\), 0 model request\(s\)\)/);
    expect(await store.listSessions(ownerId)).toEqual([]);
    // The nineteen calls that were stored went with the chat.
    expect(sessionId).not.toBe("");
    expect(await models.ToolCall.countDocuments({ sessionId })).toBe(0);
    expect(await models.Turn.countDocuments({ sessionId })).toBe(0);
  }, 60_000);
});
