import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";

/**
 * Starts the project's MongoDB-wire-compatible server (mongo-java-server 1.47.0, wire
 * version 8) on 127.0.0.1. Used by the tests on machines where no `mongod` can be had,
 * and as the embedded default database (with its H2 file backend) when no MONGODB_URI
 * is configured.
 */

const TOOL_DIR = path.resolve(process.cwd(), "tools/mongo-server");
const LIB_DIR = path.join(TOOL_DIR, "target/lib");
const START_TIMEOUT_MS = 60_000;

export interface RunningMongo {
  uri: string;
  port: number;
  /** The server's process id (fault tests pause it with SIGSTOP). */
  pid: number;
  /** Resolves with the exit code when the process ends, for whatever reason. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export class MongoLauncherError extends Error {}

/** Fetches the server's jars from Maven Central once; later calls find them in place. */
export function ensureMongoJavaServer(): void {
  if (existsSync(path.join(LIB_DIR, "mongo-java-server-core-1.47.0.jar"))) return;
  const mvn = spawnSync(
    "mvn",
    ["-q", "-B", "-f", path.join(TOOL_DIR, "pom.xml"), "dependency:copy-dependencies", `-DoutputDirectory=${LIB_DIR}`],
    { stdio: "inherit" },
  );
  if (mvn.error || mvn.status !== 0) {
    throw new MongoLauncherError(
      `Could not fetch mongo-java-server with Maven (${mvn.error?.message ?? `exit ${mvn.status}`}). ` +
        "Install Java 17+ and Maven, or set MONGODB_URI to a running MongoDB.",
    );
  }
}

export function javaAvailable(): boolean {
  const r = spawnSync("java", ["-version"], { stdio: "ignore" });
  return !r.error && r.status === 0;
}

/**
 * @param options.h2File keep data in this file (survives restarts); in memory otherwise.
 * @param options.port 0 picks a free port.
 */
export async function startMongoJavaServer(options: { h2File?: string; port?: number } = {}): Promise<RunningMongo> {
  ensureMongoJavaServer();
  const args = ["-Xss4m", "-cp", `${LIB_DIR}/*`, path.join(TOOL_DIR, "MongoLauncher.java"), "--port", String(options.port ?? 0)];
  if (options.h2File) {
    mkdirSync(path.dirname(options.h2File), { recursive: true });
    args.push("--h2", options.h2File);
  }
  // stdin stays a pipe: the launcher exits when it closes, so the server dies with us.
  const child = spawn("java", args, { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await waitForPort(child);
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    pid: child.pid!,
    exited,
    stop: () => stopChild(child),
  };
}

function waitForPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new MongoLauncherError(`mongo-java-server did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const match = /^LISTENING (\d+)$/.exec(line.trim());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new MongoLauncherError(`mongo-java-server exited during start (code ${code})`));
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new MongoLauncherError(`could not run java: ${err.message}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.stdin?.end();
    child.kill("SIGTERM");
  });
}
