import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMongoJavaServer, type RunningMongo } from "../server/db/mongo-java-server";

/**
 * Starts the test database server and the real app (production build, demo model) on
 * free loopback ports, and returns the teardown that stops both. The app's URL reaches
 * the specs through E2E_BASE_URL.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  let mongo: RunningMongo | undefined;
  let mongoUri = process.env.MONGODB_URI;
  if (!mongoUri) {
    mongo = await startMongoJavaServer();
    mongoUri = `${mongo.uri}delegate_e2e`;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-e2e-"));
  const port = await freePort();
  const server = spawn(process.execPath, ["--import", "tsx", "server/index.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      MONGODB_URI: mongoUri,
      DATA_DIR: dataDir,
      MODEL: "",
      DEMO_CHUNK_DELAY_MS: process.env.DEMO_CHUNK_DELAY_MS ?? "40",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(baseUrl, server);
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_MONGODB_URI = mongoUri;

  return async () => {
    await stop(server);
    await mongo?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHealth(baseUrl: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the app exited during start (code ${server.exitCode})`);
    try {
      const res = await fetch(`${baseUrl}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the app did not become healthy within 120 s");
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
