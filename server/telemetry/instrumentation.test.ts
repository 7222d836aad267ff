import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * The HTTP and Socket.IO instrumentations under the tsx loader, in a process of their own
 * (they patch modules as they are first loaded, which a test worker has done long before):
 * started the way server/index.ts starts tracing, they make spans of a request and of
 * socket events, but none of a relayed agent event; with OTEL_* unset nothing is traced.
 */
function probe(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/telemetry/instrumented-probe.ts"], {
      env: { ...process.env, OTEL_TRACES_EXPORTER: "", OTEL_EXPORTER_OTLP_ENDPOINT: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`the probe exited with ${code}: ${out.slice(-2000)}`));
    });
  });
}

describe("HTTP and Socket.IO spans", () => {
  it("are made for a request and a socket event when tracing is on", async () => {
    const out = await probe({ OTEL_TRACES_EXPORTER: "console" });
    expect(out).toContain("PROBE traced pong");
    expect(out).toContain("@opentelemetry/instrumentation-http");
    expect(out).toContain("@opentelemetry/instrumentation-socket.io");
    expect(out).toMatch(/name: 'GET'/);
    expect(out).toContain("/api/probe");
  }, 60_000);

  it("leave out the relay's agent events, one per streamed token, while other emits are traced", async () => {
    const out = await probe({ OTEL_TRACES_EXPORTER: "console" });
    expect(out).toContain("PROBE traced pong");
    expect(out).toContain("'messaging.socket.io.event_name': 'sessions:changed'");
    expect(out).not.toContain("'messaging.socket.io.event_name': 'agent:event'");
  }, 60_000);

  it("are not made when OTEL_* leaves tracing off", async () => {
    const out = await probe({});
    expect(out).toContain("PROBE untraced pong");
    expect(out).not.toContain("@opentelemetry/instrumentation");
  }, 60_000);
});
