import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMongoJavaServer, type RunningMongo } from "../../server/db/mongo-java-server";
import { startAppProcess } from "../app-process";
import {
  startScriptedOpenAIServer,
  type ScriptedHandler,
  type ScriptedOpenAIServer,
  type ScriptedServerOptions,
} from "../../test/support/model/scripted-openai-server";

/**
 * A second, private instance of the real app (production build) whose model is a
 * scripted OpenAI-compatible server with hostile replies, plus an "attacker" server that
 * counts every request it gets. Everything listens on 127.0.0.1 and stops in `stop()`.
 */
export interface HostileApp {
  baseUrl: string;
  attackerUrl: string;
  /** Paths the attacker server was asked for: must stay empty. */
  attackerHits: string[];
  model: ScriptedOpenAIServer;
  stop(): Promise<void>;
}

export async function startHostileApp(options: {
  handler: ScriptedHandler;
  workspaceFiles: Record<string, string>;
  env?: Record<string, string>;
  /** What the model server lists on `GET /models`. */
  model?: ScriptedServerOptions;
}): Promise<HostileApp> {
  const stops: Array<() => Promise<void> | void> = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn();
  };
  try {
    const attackerHits: string[] = [];
    const attacker = createServer((req, res) => {
      attackerHits.push(req.url ?? "/");
      res.writeHead(200, { "content-type": "text/plain" }).end("attacker");
    });
    await listen(attacker);
    stops.push(() => closeServer(attacker));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

    const model = await startScriptedOpenAIServer(options.handler, options.model);
    stops.push(() => model.close());

    const mongoUri = await databaseUri(stops);
    const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-hostile-data-"));
    const workspace = mkdtempSync(path.join(tmpdir(), "delegate-hostile-ws-"));
    stops.push(() => rmSync(dataDir, { recursive: true, force: true }));
    stops.push(() => rmSync(workspace, { recursive: true, force: true }));
    for (const [name, content] of Object.entries(options.workspaceFiles)) writeFileSync(path.join(workspace, name), content);

    const app = await startAppProcess({
      mongoUri,
      dataDir,
      quiet: true,
      env: {
        WORKSPACE_DIR: workspace,
        MODEL: "scripted",
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "test",
        MODEL_MAX_RETRIES: "0",
        URL_FETCH_ENABLED: "false",
        ...options.env,
      },
    });
    stops.push(() => app.stop());
    const { baseUrl } = app;
    return { baseUrl, attackerUrl, attackerHits, model, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The shared e2e database server under another database name, or a private one. */
async function databaseUri(stops: Array<() => Promise<void> | void>): Promise<string> {
  const shared = process.env.E2E_MONGODB_URI;
  if (shared) {
    const url = new URL(shared);
    url.pathname = `/delegate_hostile_${Date.now().toString(36)}`;
    return url.toString();
  }
  const mongo: RunningMongo = await startMongoJavaServer();
  stops.push(() => mongo.stop());
  return `${mongo.uri}delegate_hostile`;
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
