import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../free-port";

/**
 * Jaeger v2 (an OpenTelemetry-collector distribution) all-in-one on 127.0.0.1, for the
 * tracing tests: an OTLP-over-HTTP receiver, in-memory storage and the query API, each on
 * a free loopback port and nothing else listening (no UI-only ports, no metrics of its
 * own). `scripts/jaeger.sh` builds the binary once per version.
 *
 * Like the FerretDB launcher, it runs under a small shell that kills it when its stdin
 * closes, so it ends with the test process however that one ends.
 */
export interface RunningJaeger {
  /** Base URL for OTLP over HTTP (the exporter adds /v1/traces). */
  otlpUrl: string;
  /** Base URL of the query API (`/api/traces`, `/api/services`, `/api/v3/…`). */
  queryUrl: string;
  stop(): Promise<void>;
}

const BUILD_SCRIPT = path.resolve(process.cwd(), "scripts/jaeger.sh");
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const WATCHDOG = 'exec 3<&0; "$@" & pid=$!; (cat <&3 >/dev/null; kill "$pid" 2>/dev/null) & wait "$pid"';

/** The binary's path when it is built, else undefined (building takes long: the test says how). */
export function builtJaeger(): string | undefined {
  const run = spawnSync("bash", ["-c", 'source <(sed -n "/^VERSION=/p" scripts/jaeger.sh); echo "$PWD/tools/jaeger/bin/jaeger-$VERSION"'], {
    encoding: "utf8",
  });
  const bin = run.stdout?.trim();
  return bin && existsSync(bin) ? bin : undefined;
}

/** Builds the binary when missing (many minutes, cold) and returns its path. */
export function ensureJaeger(): string {
  const run = spawnSync("bash", [BUILD_SCRIPT, "--print-path"], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  const bin = run.stdout?.trim().split("\n").pop();
  if (run.error || run.status !== 0 || !bin)
    throw new Error(`scripts/jaeger.sh could not build Jaeger (${run.error?.message ?? `exit ${run.status}`}); Go is needed.`);
  return bin;
}

export function jaegerConfig(ports: { otlp: number; http: number; grpc: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.http}
    grpc:
      endpoint: 127.0.0.1:${ports.grpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

export async function startJaeger(bin = ensureJaeger()): Promise<RunningJaeger> {
  const dir = mkdtempSync(path.join(tmpdir(), "delegate-jaeger-"));
  const ports = { otlp: await freePort(), http: await freePort(), grpc: await freePort() };
  const config = path.join(dir, "config.yaml");
  writeFileSync(config, jaegerConfig(ports));
  const child = spawn("sh", ["-c", WATCHDOG, "jaeger", bin, "--config", `file:${config}`], {
    stdio: ["pipe", "ignore", "pipe"],
    detached: true,
  });
  let tail = "";
  child.stderr!.on("data", (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const queryUrl = `http://127.0.0.1:${ports.http}`;
  const otlpUrl = `http://127.0.0.1:${ports.otlp}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const force = setTimeout(() => killGroup(child.pid), STOP_GRACE_MS);
      child.stdin!.end();
      await exited;
      clearTimeout(force);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when both the query API answers and the OTLP receiver takes connections.
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(`${queryUrl}/api/services`)) || !(await answers(`${otlpUrl}/v1/traces`))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Jaeger did not start (${child.exitCode !== null ? `exit ${child.exitCode}` : "timeout"}): ${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { otlpUrl, queryUrl, stop };
}

/** Whether anything answers there with HTTP (any status: a GET on the OTLP path is refused, but answered). */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
