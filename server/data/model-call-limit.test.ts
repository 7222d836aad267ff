import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelCallRecord } from "@/lib/contracts";
import { loadModelCall } from "@/server/data/model-call-log";
import { modelCallRecord } from "@/test/support/model/model-call-record";
import { openTestDatabase, type TestDatabase } from "@/test/support/server/database";

/**
 * A model-call record over MongoDB's 16 MiB document limit does not block the chat's
 * audit log: it is stored with its large parts replaced by a note, the records behind it
 * are stored, and `drain` resolves.
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase("model-call-limit");
});
afterAll(async () => {
  await db?.close();
});

const HUGE = "y".repeat(18 * 1024 * 1024);

const record = (callId: string, index: number, text: string, content = "hello"): ModelCallRecord =>
  modelCallRecord({ callId, turnId: "t1", index, text, content });

describe("a model-call record over the document limit", () => {
  it("is stored cut, with a logged reason, and the records behind it are stored", async () => {
    const { sessionId } = await db.store.createSession("owner-1");
    const warnings: string[] = [];
    const log = { warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    const calls = db.store.modelCallLog({ sessionId, log, retryDelayMs: { base: 10, max: 50 } });
    calls.write(record("big-response", 0, HUGE));
    calls.write(record("big-message", 1, "ok", HUGE));
    calls.write(record("after", 2, "the answer is 42"));
    await calls.drain();

    const big = await loadModelCall(db.models, sessionId, "big-response");
    expect(big?.response.text).toMatch(/^\[not stored: 18\.0 MB/);
    const message = await loadModelCall(db.models, sessionId, "big-message");
    expect(message?.request.messages[0]?.content).toMatch(/^\[not stored: 18\.0 MB/);
    expect((await loadModelCall(db.models, sessionId, "after"))?.response.text).toBe("the answer is 42");
    expect(warnings.filter((w) => /parts cut/.test(w))).toHaveLength(2);
    expect(calls.givenUp).toBe(2);
  }, 20_000);
});
