import { describe, expect, it } from "vitest";
import { lineSplitter, parseLogLine, readableLogLine } from "./log-lines";

describe("reading a child app's JSON log", () => {
  it("hands on whole lines only, however the chunks fall", () => {
    const lines: string[] = [];
    const onData = lineSplitter((line) => lines.push(line));
    onData('{"level":"info","msg":"a"}\n{"level":"in');
    onData('fo","msg":"b"}\n\n');
    onData("tail without an end");
    expect(lines).toEqual(['{"level":"info","msg":"a"}', '{"level":"info","msg":"b"}']);
  });

  it("takes a line for a log record only when it is JSON with a level and a msg", () => {
    expect(parseLogLine('{"level":"warn","time":"2026-01-01T00:00:00.000Z","msg":"careful","n":1}')).toEqual({
      level: "warn",
      time: "2026-01-01T00:00:00.000Z",
      msg: "careful",
      n: 1,
    });
    expect(parseLogLine("[delegate] info Delegate is ready at http://127.0.0.1:3000")).toBeUndefined();
    expect(parseLogLine('{"msg":"no level"}')).toBeUndefined();
    expect(parseLogLine('{"level":30,"msg":"a number"}')).toBeUndefined();
    expect(parseLogLine("42")).toBeUndefined();
  });

  it("shows a record as level, message and its own fields, with an error's stack on lines of its own", () => {
    const line = JSON.stringify({
      level: "error",
      time: "2026-01-01T00:00:00.000Z",
      pid: 1,
      hostname: "h",
      name: "delegate",
      msg: "command failed",
      sessionId: "s1",
      err: { type: "Error", message: "boom", stack: "Error: boom\n    at here" },
    });
    expect(readableLogLine(line)).toBe('error command failed {"sessionId":"s1"}\nError: boom\n    at here');
    expect(readableLogLine("not a record")).toBe("not a record");
  });
});
