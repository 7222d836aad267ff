import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialSessionState, sessionReducer, type SessionState } from "@/lib/chat/session-state";
import { isDataEvent, type AgentData, type AgentEvent, type ChatTurn, type SessionEvent } from "@/lib/contracts";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type ToolOutputEntry } from "@/lib/export/session-file";
import { applyEvent, newTurn, turnFromStart } from "@/lib/turn/reduce";
import { importSessionFile, parseSessionFile } from "@/server/export/session-import";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";
import { recordedStream } from "@/test/support/turn/recorded-stream";
import { recordedStreamOptions } from "@/test/support/turn/stream-options";
import { replayRunner } from "@/test/support/sessions/replay-runner";
import { DroneSession } from "./drone-session";

/**
 * Text with a NUL or a lone surrogate, in every place an agent's words enter a turn
 * besides its streamed text (a subagent's task and answer, approval content, tool output,
 * steering, errors), comes out the same live, after a reload from MongoDB and after an
 * import of a file holding the raw text: normalised once where it entered, never left to
 * the UTF-8 encoder or the browser's HTML parser to change later.
 */

/** `p` put before every text an agent's event carries apart from its streamed text (whose offsets it would move). */
function poisoned(events: readonly AgentEvent[], p: string): AgentEvent[] {
  const output = <T extends { response: string; responseSize: number; fullResponse?: string }>(o: T): T => ({
    ...o,
    response: p + o.response,
    responseSize: o.responseSize + p.length,
    ...(o.fullResponse !== undefined ? { fullResponse: p + o.fullResponse } : {}),
  });
  const data = (d: AgentData): AgentData => {
    if (d.kind === "tool_result") return output(d);
    if (d.kind === "steer") return { ...d, message: p + d.message };
    if (d.kind !== "approval") return d;
    const a = d.approval;
    return {
      ...d,
      approval: {
        ...a,
        reason: p + a.reason,
        ...(a.preview !== undefined ? { preview: p + a.preview } : {}),
        ...(a.denyReason !== undefined ? { denyReason: p + a.denyReason } : {}),
        ...(a.note !== undefined ? { note: p + a.note } : {}),
      },
    };
  };
  return events.map((e): AgentEvent => {
    if (isDataEvent(e)) return { ...e, data: data(e.data) } as AgentEvent;
    if (e.type === "subagent_started") return { ...e, task: p + e.task, prompt: p + e.prompt };
    if (e.type === "subagent_completed") return { ...e, response: p + e.response };
    if (e.type === "subagent_error") return { ...e, error: p + e.error };
    if (e.type === "agent:complete") return output(e);
    return e;
  });
}

/** The whole outputs a file carries beside its turn (the previews are in the turn). */
function fullOutputs(events: readonly AgentEvent[]): ToolOutputEntry[] {
  const out: ToolOutputEntry[] = [];
  for (const e of events) {
    if (isDataEvent(e) && e.data.kind === "tool_result" && e.data.fullResponse !== undefined)
      out.push({ runId: e.runId, callId: e.data.callId, text: e.data.fullResponse });
    if (e.type === "agent:complete" && e.fullResponse !== undefined)
      out.push({ runId: e.parentRunId, callId: e.callId, text: e.fullResponse });
  }
  return out;
}

/** A turn with its ids by order of appearance, so a turn and its import compare equal. */
function idsAside(turn: ChatTurn): unknown {
  const ids = new Map<string, string>([
    [turn.turnId, "turn"],
    [turn.sessionId, "session"],
  ]);
  const walk = (steps: ChatTurn["steps"]) => {
    for (const step of steps)
      for (const call of step.toolCalls)
        if (call.subagent) {
          ids.set(call.subagent.runId, `run${ids.size}`);
          walk(call.subagent.steps);
        }
  };
  walk(turn.steps);
  return JSON.parse(JSON.stringify(turn), (_key, value: unknown) => (typeof value === "string" ? (ids.get(value) ?? value) : value));
}

/** A NUL, or a UTF-16 surrogate without its other half. */
// eslint-disable-next-line no-control-regex -- a NUL is what this finds
const MALFORMED = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const prefixes = fc
  .array(fc.constantFrom("\u0000", "\uD800", "\uDFFF", "a\uDBFFb", "\uDC00z", "🧪", "é", " "), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(""))
  .filter((p) => MALFORMED.test(p));

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase("entering-text");
});
afterAll(() => db?.close());

describe("a NUL or a lone surrogate in what an agent says (property)", () => {
  it("shows the same live, after a reload from MongoDB and after an import", async () => {
    await fc.assert(
      fc.asyncProperty(recordedStreamOptions, prefixes, async (options, prefix) => {
        const stream = recordedStream({ ...options, approvals: Math.max(1, options.approvals ?? 0) });
        const raw = poisoned(stream.events, prefix);
        const { sessionId } = await db.store.createSession("owner-1");
        let browser: SessionState = initialSessionState(sessionId);
        const relayed: SessionEvent[] = [];
        const drone = await DroneSession.open({
          store: db.store,
          sessionId,
          title: "t",
          runner: replayRunner(raw),
          flushMs: 5,
          relay: (event) => {
            relayed.push(event);
            browser = sessionReducer(browser, { type: "event", event });
          },
        });
        const turnId = await drone.startTurn(stream.prompt);
        await drone.settled();
        await drone.drain();
        const live = drone.liveTurn(turnId)!;

        // Live: what viewers were sent holds nothing the encoder or the HTML parser would change.
        expect(relayed.filter((e) => MALFORMED.test(JSON.stringify(e)))).toEqual([]);
        expect(browser.turns).toStrictEqual([live]);
        // Reloaded: MongoDB gives back exactly that.
        expect(await db.store.loadHistory(sessionId)).toStrictEqual([live]);

        // Imported: a file carrying the raw text (as a hostile or hand-made one would) stores the same turn.
        const rawTurn = raw.reduce(
          (turn, event) => (event.type === "turn:started" ? turnFromStart(event, "elsewhere") : applyEvent(turn, event)),
          newTurn({ sessionId: "elsewhere", turnId: raw[0]!.turnId, prompt: "", createdAt: "" }),
        );
        const file = {
          format: SESSION_FILE_FORMAT,
          version: SESSION_FILE_VERSION,
          exportedAt: "2026-01-02T00:00:00.000Z",
          session: { title: `Imported ${prefix}`, createdAt: "2026-01-01T00:00:00.000Z" },
          turns: [{ turn: rawTurn, toolOutputs: fullOutputs(raw), modelCalls: [] }],
        };
        const imported = await importSessionFile(db.store, "owner-1", await parseSessionFile(JSON.stringify(file)), (title) =>
          db.store.createSession("owner-1", title),
        );
        expect(MALFORMED.test(imported.title)).toBe(false);
        const [stored] = await db.store.loadHistory(imported.sessionId);
        expect(MALFORMED.test(JSON.stringify(stored))).toBe(false);
        expect(idsAside(stored!)).toStrictEqual(idsAside({ ...live, createdAt: stored!.createdAt }));
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
