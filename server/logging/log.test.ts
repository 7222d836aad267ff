import { Writable } from "node:stream";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logEnv } from "@/lib/env";
import { createLogger, type LoggerOptions } from "@/server/log";
import { logFormat } from "@/server/logging/format";
import { consoleLine } from "@/server/logging/process-output";

/** A logger writing into an array of lines instead of stderr. */
function collect(options: LoggerOptions = {}) {
  const lines: string[] = [];
  let pending = "";
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString();
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      lines.push(...parts);
      done();
    },
  });
  return {
    log: createLogger({ format: "json", ...options, destination }),
    lines,
    json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("the server's logger in JSON mode", () => {
  it("writes one JSON object a line: level by name, ISO time, msg and the metadata's fields", () => {
    const { log, lines, json } = collect();
    log.info("Delegate is ready", { port: 3000, model: "demo" });
    log.warn("a warning");
    log.error("a failure", { error: "Error: boom\n    at somewhere" });
    expect(lines).toHaveLength(3);
    const [ready, warning, failure] = json();
    expect(ready).toMatchObject({ level: "info", msg: "Delegate is ready", port: 3000, model: "demo", name: "delegate" });
    expect(new Date(ready!.time as string).toISOString()).toBe(ready!.time);
    expect(warning).toMatchObject({ level: "warn", msg: "a warning" });
    expect(failure).toMatchObject({ level: "error", msg: "a failure", error: "Error: boom\n    at somewhere" });
  });

  it("names the process on every line: pid and hostname, and INSTANCE_ID as `instance` when set", () => {
    const named = collect({ instance: "web-2" });
    named.log.info("one");
    expect(named.json()[0]).toMatchObject({ pid: process.pid, instance: "web-2" });
    expect(typeof named.json()[0]!.hostname).toBe("string");
    const unnamed = collect();
    unnamed.log.info("two", { instance: "from metadata" });
    expect(unnamed.json()[0]).not.toHaveProperty("instance");
    expect(unnamed.json()[0]).toMatchObject({ meta_instance: "from metadata" });
  });

  it("serialises an Error as type, message and stack, given as the metadata, as `err` or as `error`", () => {
    const { log, json } = collect();
    log.error("whole", new TypeError("bad input"));
    log.error("as err", { err: new Error("one") });
    log.error("as error", { error: new Error("two") });
    const [whole, asErr, asError] = json();
    expect(whole!.err).toMatchObject({ type: "TypeError", message: "bad input", stack: expect.stringContaining("TypeError: bad input") });
    expect(asErr!.err).toMatchObject({ type: "Error", message: "one" });
    expect(asError!.error).toMatchObject({ type: "Error", message: "two", stack: expect.stringContaining("Error: two") });
  });

  it("keeps its own fields its own: metadata named level or msg is written as meta_level, meta_msg", () => {
    const { log, lines, json } = collect();
    log.info("the message", { level: "high", msg: "other", time: 5 });
    expect(lines[0]!.match(/"level":/g)).toHaveLength(1);
    expect(json()[0]).toMatchObject({ level: "info", msg: "the message", meta_level: "high", meta_msg: "other", meta_time: 5 });
  });

  it("writes info and up by default, debug with LOG_LEVEL=debug, only warnings and errors when quiet", () => {
    const levels = (options: LoggerOptions) => {
      const { log, json } = collect(options);
      log.debug("d");
      log.info("i");
      log.warn("w");
      log.error("e");
      return json().map((line) => line.level);
    };
    expect(levels({})).toEqual(["info", "warn", "error"]);
    expect(levels({ level: "debug" })).toEqual(["debug", "info", "warn", "error"]);
    expect(levels({ level: "error" })).toEqual(["error"]);
    expect(levels({ quiet: true })).toEqual(["warn", "error"]);
    expect(levels({ quiet: true, level: "error" })).toEqual(["error"]);
  });
});

describe("trace ids on log lines", () => {
  const contextManager = new AsyncLocalStorageContextManager();
  const tracer = new BasicTracerProvider().getTracer("log-test");

  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    contextManager.disable();
    context.disable();
  });

  it("carries the active span's trace_id, span_id and trace_flags, across an await", async () => {
    const { log, json } = collect();
    const ids = await tracer.startActiveSpan("turn", async (span) => {
      log.info("inside");
      await new Promise((resolve) => setImmediate(resolve));
      log.info("after an await");
      span.end();
      return span.spanContext();
    });
    const [inside, later] = json();
    for (const line of [inside, later]) {
      expect(line).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId, trace_flags: "01" });
    }
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("carries none outside a span, or inside one with no valid ids", () => {
    const { log, json } = collect();
    log.info("outside");
    context.with(
      trace.setSpan(context.active(), trace.wrapSpanContext({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 })),
      () => log.info("invalid span"),
    );
    for (const line of json()) {
      expect(line).not.toHaveProperty("trace_id");
      expect(line).not.toHaveProperty("span_id");
      expect(line).not.toHaveProperty("trace_flags");
    }
  });
});

describe("pretty mode", () => {
  it("writes lines for a person, not JSON: time, level, message, then the metadata", async () => {
    const { log, lines } = collect({ format: "pretty" });
    log.info("Delegate is ready at http://127.0.0.1:3000", { model: "demo" });
    log.warn("careful");
    await expect.poll(() => lines.length).toBeGreaterThanOrEqual(3);
    const text = lines.join("\n");
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Delegate is ready at http:\/\/127\.0\.0\.1:3000$/m);
    expect(text).toMatch(/^\s+model: "demo"$/m);
    expect(text).toMatch(/WARN: careful/);
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
    expect(text).not.toContain("\u001b["); // no colours into something that is not a terminal
  });
});

describe("choosing the format", () => {
  it("auto: pretty at a terminal outside production, JSON in production and whenever stderr is not a terminal", () => {
    expect(logFormat("auto", false, true)).toBe("pretty");
    expect(logFormat("auto", true, true)).toBe("json");
    expect(logFormat("auto", false, false)).toBe("json");
    expect(logFormat("json", false, true)).toBe("json");
    expect(logFormat("pretty", true, false)).toBe("pretty");
  });

  it("reads LOG_LEVEL and LOG_FORMAT on their own, falling back to the defaults on a bad value", () => {
    expect(logEnv({})).toEqual({ NODE_ENV: "development", LOG_LEVEL: "info", LOG_FORMAT: "auto" });
    expect(logEnv({ NODE_ENV: "production", LOG_LEVEL: "debug", LOG_FORMAT: "json", INSTANCE_ID: " web-1 " })).toEqual({
      NODE_ENV: "production",
      LOG_LEVEL: "debug",
      LOG_FORMAT: "json",
      INSTANCE_ID: "web-1",
    });
    expect(logEnv({ LOG_LEVEL: "loud", LOG_FORMAT: "xml", NODE_ENV: "production" })).toEqual({
      NODE_ENV: "production",
      LOG_LEVEL: "info",
      LOG_FORMAT: "auto",
    });
  });
});

describe("console calls routed through the logger", () => {
  it("formats the arguments as the message, without colour codes, and lifts an Error out as err", () => {
    expect(consoleLine(["%s is %d", "x", 3])).toEqual(["x is 3", undefined]);
    expect(consoleLine(["\u001b[32m\u001b[1m✓\u001b[22m\u001b[39m Running next.config.mjs took 120ms"])).toEqual([
      "✓ Running next.config.mjs took 120ms",
      undefined,
    ]);
    const error = new Error("render failed");
    expect(consoleLine([error])).toEqual(["render failed", { err: error }]);
    expect(consoleLine(["while rendering /chat:", error])).toEqual(["while rendering /chat:", { err: error }]);
  });
});
