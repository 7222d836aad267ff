import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMongoJavaServer, type RunningMongo } from "../server/db/mongo-java-server";
import { startAppProcess } from "./app-process";

/**
 * Starts the test database server and the real app (production build, demo model) on
 * free loopback ports, and returns the teardown that stops both. The specs find the app
 * through E2E_BASE_URL, the database server through E2E_MONGODB_URI and the app's copy of
 * the workspace through E2E_WORKSPACE_DIR.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  let mongo: RunningMongo | undefined;
  let serverUri = process.env.MONGODB_URI;
  if (!serverUri) {
    mongo = await startMongoJavaServer();
    serverUri = mongo.uri;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-e2e-"));
  // A copy of the sample workspace: approved file edits (e2e/approval.spec.ts) must not change the repository's.
  const workspaceDir = path.join(dataDir, "workspace");
  cpSync("workspace", workspaceDir, { recursive: true });
  const app = await startAppProcess({
    mongoUri: new URL("delegate_e2e", serverUri).toString(),
    dataDir,
    env: { WORKSPACE_DIR: workspaceDir },
  });
  process.env.E2E_BASE_URL = app.baseUrl;
  process.env.E2E_WORKSPACE_DIR = workspaceDir;
  process.env.E2E_MONGODB_URI = serverUri;

  return async () => {
    await app.stop();
    await mongo?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    // The app runs in production, where its log is JSON: a line that is not one escaped the logger.
    const stray = app.strayLines();
    if (stray.length > 0) throw new Error(`the app wrote lines to stderr that are not JSON log records:\n${stray.join("\n")}`);
  };
}
