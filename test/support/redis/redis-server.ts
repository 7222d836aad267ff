import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { freePort } from "../free-port";

/**
 * A real Debian `redis-server` for the scale-out tests, on a free loopback port, with no
 * persistence (a restart starts empty, as a crashed cache would) and no config file. It
 * stops when the test process exits, and `restart` brings it back on the same port, so a
 * test can take Redis away mid-turn and give it back. `scripts/ensure-test-deps.sh`
 * installs the package when it is missing.
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port (after `stop`). */
  start(): Promise<void>;
  /** Stops, then starts. */
  restart(): Promise<void>;
  readonly running: boolean;
}

export const REDIS_SERVER_PATH = process.env.REDIS_SERVER_PATH ?? "redis-server";

export async function startTestRedis(options: { port?: number } = {}): Promise<TestRedis> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child) return;
    const proc = spawn(
      REDIS_SERVER_PATH,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--protected-mode",
        "yes",
        "--loglevel",
        "warning",
      ],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    proc.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const spawned = new Promise<void>((resolve, reject) => {
      proc.once("error", (error) =>
        reject(new Error(`could not start ${REDIS_SERVER_PATH} (install Debian's redis-server): ${error.message}`)),
      );
      proc.once("spawn", () => resolve());
    });
    await spawned;
    child = proc;
    proc.once("exit", () => {
      if (child === proc) child = undefined;
    });
    await waitForPing(port, proc, () => stderr);
  };

  const stop = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) {
      child = undefined;
      return;
    }
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => proc.kill("SIGKILL"), 5_000);
      proc.once("exit", () => {
        clearTimeout(force);
        resolve();
      });
      proc.kill("SIGTERM");
    });
    child = undefined;
  };

  await start();
  // A test that forgets to stop it does not leave a server behind.
  process.once("exit", () => child?.kill("SIGKILL"));
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    get running() {
      return child !== undefined;
    },
  };
}

/** Polls with a raw PING until the server answers PONG (bounded: 10 s). */
async function waitForPing(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited during start (code ${proc.exitCode}): ${log()}`);
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill("SIGKILL");
  throw new Error(`redis-server did not answer on port ${port} within 10 s: ${log()}`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}
