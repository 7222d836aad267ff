import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../test/support/free-port";
import { lineSplitter, parseLogLine, readableLogLine } from "../test/support/log-lines";

export { freePort };

/**
 * The real app as a child process, the way a person runs it (production build, demo
 * model unless the env says otherwise), on a loopback port.
 */
export interface AppProcess {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Lines it wrote to stderr that are not JSON log records (the first 20): in production
   * every line should be one (docs/logs.md), so a run that finds any says which.
   */
  strayLines(): string[];
}

export interface AppProcessOptions {
  port?: number;
  mongoUri: string;
  dataDir: string;
  env?: Record<string, string>;
  /** Keep the app's log out of the test output (its last lines still explain a failed start). */
  quiet?: boolean;
  /**
   * Each line the app writes to stderr, from its first: its log, one JSON object a line in
   * production (docs/logs.md; test/support/log-lines.ts reads them).
   */
  onStderrLine?: (line: string) => void;
  /** Options for node itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

export async function startAppProcess(options: AppProcessOptions): Promise<AppProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", "tsx", "server/index.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      MONGODB_URI: options.mongoUri,
      DATA_DIR: options.dataDir,
      MODEL: "",
      APP_PASSWORD: "",
      DEMO_CHUNK_DELAY_MS: "40",
      // A short time to first token (a person's pace, lib/env.ts, would triple the browser
      // tests' time): each step of a run then pauses, as a real model's do, so a click on a
      // running panel finds it still (the stream moves everything below it).
      DEMO_REPLY_DELAY_MS: "100",
      ...options.env,
    },
    // stderr is read here even when shown, so that every line can be checked.
    stdio: options.quiet ? ["ignore", "ignore", "pipe"] : ["ignore", "inherit", "pipe"],
  });
  // The last lines, as a person reads them, explain a start that failed.
  const tail: string[] = [];
  const stray: string[] = [];
  if (!options.quiet) child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  child.stderr?.on(
    "data",
    lineSplitter((line) => {
      options.onStderrLine?.(line);
      tail.push(readableLogLine(line));
      if (tail.length > 40) tail.shift();
      if (!parseLogLine(line) && stray.length < 20) stray.push(line);
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(baseUrl, child, () => `\n${tail.join("\n")}`);
  return { baseUrl, port, child, stop: (signal) => stopChild(child, signal), strayLines: () => [...stray] };
}

async function waitForHealth(baseUrl: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the app exited during start (code ${child.exitCode}) ${log()}`);
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  throw new Error("the app did not become healthy within 120 s");
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
