import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/**
 * FerretDB 1.x (a second, independent MongoDB-wire implementation, here on its SQLite
 * backend) on 127.0.0.1, for running the data-layer tests on a database other than the
 * project's own test server. `scripts/ferretdb.sh` builds the binary once per version;
 * its data lives in a fresh temporary directory that `stop` removes.
 *
 * The server runs under a small shell that kills it when its stdin closes, so it ends
 * with the test process however that one ends (a SIGKILL too): FerretDB itself does not
 * watch its parent.
 */
export interface RunningFerretDb {
  uri: string;
  port: number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const BUILD_SCRIPT = path.resolve(process.cwd(), "scripts/ferretdb.sh");
const LISTENING = /^Listening on TCP 127\.0\.0\.1:(\d+)/;
// fd 3 keeps the pipe: an asynchronous list's own stdin is /dev/null.
const WATCHDOG = 'exec 3<&0; "$@" & pid=$!; (cat <&3 >/dev/null; kill "$pid" 2>/dev/null) & wait "$pid"';

/** Builds the binary when it is missing (a minute, cold) and returns its path. */
export function ensureFerretDb(): string {
  const run = spawnSync("bash", [BUILD_SCRIPT, "--print-path"], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  const bin = run.stdout?.trim().split("\n").pop();
  if (run.error || run.status !== 0 || !bin) {
    throw new Error(`scripts/ferretdb.sh could not build FerretDB (${run.error?.message ?? `exit ${run.status}`}); Go is needed.`);
  }
  return bin;
}

export async function startFerretDb(): Promise<RunningFerretDb> {
  const bin = ensureFerretDb();
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-ferretdb-"));
  const args = [
    "--handler=sqlite",
    `--sqlite-url=file:${dataDir}/`,
    `--state-dir=${dataDir}`,
    "--listen-addr=127.0.0.1:0",
    // No metrics or profiling listener, and no reports to the vendor.
    "--debug-addr=-",
    "--telemetry=disable",
    "--log-format=json",
  ];
  const child = spawn("sh", ["-c", WATCHDOG, "ferretdb", bin, ...args], {
    stdio: ["pipe", "ignore", "pipe"],
    // Its own process group, so a forced stop reaches FerretDB and not only the shell.
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let tail = "";
  let started = false;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(`did not listen within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      killGroup(child.pid);
      reject(new Error(`FerretDB ${why}: ${tail.slice(-1000)}`));
    };
    // Read every line for as long as it runs: a full pipe would stall the server.
    createInterface({ input: child.stderr! }).on("line", (line) => {
      tail = (tail + line + "\n").slice(-4000);
      const match = LISTENING.exec(messageOf(line));
      if (match && !started) {
        started = true;
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      if (!started) fail(`exited during start (code ${code})`);
    });
    child.once("error", (error) => fail(`could not be run: ${error.message}`));
  });
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const force = setTimeout(() => killGroup(child.pid), STOP_GRACE_MS);
        child.stdin!.end();
        await exited;
        clearTimeout(force);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function messageOf(line: string): string {
  try {
    return String((JSON.parse(line) as { msg?: unknown }).msg ?? "");
  } catch {
    return line;
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
