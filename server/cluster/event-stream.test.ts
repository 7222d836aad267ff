import { describe, expect, it } from "vitest";
import { parseEntry, streamKey } from "./event-stream";

describe("a chat's stream entries", () => {
  const event = {
    type: "turn:data",
    turnId: "t",
    runId: null,
    data: { kind: "token", step: 0, offset: 0, text: "hi" },
    sessionId: "s1",
    seq: 7,
  };

  it.each([
    { why: "a well-formed entry", fields: { i: "app-a", e: JSON.stringify(event) }, ok: true },
    { why: "no instance", fields: { e: JSON.stringify(event) }, ok: false },
    { why: "not JSON", fields: { i: "app-a", e: "{nope" }, ok: false },
    { why: "JSON null", fields: { i: "app-a", e: "null" }, ok: false },
    { why: "no sequence number", fields: { i: "app-a", e: JSON.stringify({ ...event, seq: "7" }) }, ok: false },
    { why: "no session", fields: { i: "app-a", e: JSON.stringify({ ...event, sessionId: 1 }) }, ok: false },
  ])("$why → ${ok}", ({ fields, ok }) => {
    const entry = parseEntry(fields);
    if (ok) expect(entry).toEqual({ instanceId: "app-a", event });
    else expect(entry).toBeNull();
  });

  it("are keyed per chat", () => {
    expect(streamKey("abc")).toBe("dlg:chat:abc:events");
  });
});
