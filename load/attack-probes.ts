import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { io, type Socket } from "socket.io-client";
import { emptyStats, type AgentEvent, type ChatTurn } from "@/lib/contracts";
import { SESSION_FILE_FORMAT, SESSION_FILE_VERSION, type SessionFile } from "@/lib/export/session-file";
import { applyEvent, newTurn } from "@/lib/turn/reduce";
import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { startAppProcess } from "@/e2e/app-process";
import { startScriptedOpenAIServer, type ScriptedResponse } from "@/test/support/model/scripted-openai-server";
import { ev } from "@/test/support/turn/event-builders";

/**
 * `npx tsx load/attack-probes.ts` — the inputs that once stalled the server for everyone,
 * sent from outside to the real app (a child process, as a person runs it) while a second
 * person's requests are timed. Each probe prints how the attack was answered and the
 * slowest answer the bystander got meanwhile: the event loop is shared, so a stall shows
 * up there whatever caused it.
 */

interface Stall {
  requests: number;
  failed: number;
  maxMs: number;
}

/**
 * Asks /api/health back to back until stopped; the slowest answer is the longest stall.
 * It runs on a thread of its own: this process also plays the attacker (it serves the
 * model's 10,000-call reply and reads the turn's events), and a bystander on the same
 * event loop would time that work as the app's stall. It still shares the machine's two
 * cores with the attacker and the database, which the app's own longest block does not.
 */
function startBystander(baseUrl: string): { stop(): Promise<Stall> } {
  const worker = new Worker(BYSTANDER, { eval: true, workerData: { baseUrl } });
  return {
    stop: () =>
      new Promise<Stall>((resolve, reject) => {
        worker.once("message", (stall: Stall) => void worker.terminate().then(() => resolve(stall)));
        worker.once("error", reject);
        worker.postMessage("stop");
      }),
  };
}

const BYSTANDER = `
const { get } = require("node:http");
const { parentPort, workerData } = require("node:worker_threads");
let running = true;
const stall = { requests: 0, failed: 0, maxMs: 0 };
parentPort.once("message", () => (running = false));
(async () => {
  while (running) {
    const started = performance.now();
    // A connection of its own each time (no pool shared with the attack's requests).
    const ok = await new Promise((resolve) =>
      get(workerData.baseUrl + "/api/health", { agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200));
      }).on("error", () => resolve(false)),
    );
    if (!ok) stall.failed++;
    stall.maxMs = Math.max(stall.maxMs, performance.now() - started);
    stall.requests++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  parentPort.postMessage(stall);
})();
`;

/** Where the app writes its event-loop blocks (load/support/loop-blocks.mjs). */
const LOOP_BLOCKS_FILE = path.join(os.tmpdir(), `delegate-loop-blocks-${process.pid}.txt`);

/** The app's longest event-loop block that overlaps two instants of the machine's monotonic clock. */
function longestBlock(from: bigint, to: bigint): number {
  if (!existsSync(LOOP_BLOCKS_FILE)) return 0;
  let longest = 0;
  for (const line of readFileSync(LOOP_BLOCKS_FILE, "utf8").split("\n")) {
    const [start, end, heldMs] = line.split(" ");
    if (!start || !end || !heldMs || BigInt(end) < from || BigInt(start) > to) continue;
    longest = Math.max(longest, Number(heldMs));
  }
  return longest;
}

function turnWithCalls(steps: number, callsPerStep: number): ChatTurn {
  const at = "2026-01-01T00:00:00.000Z";
  let turn = newTurn({ sessionId: "s0", turnId: "t1", prompt: "Look everywhere", createdAt: at });
  for (let step = 0; step < steps; step++)
    for (let i = 0; i < callsPerStep; i++) {
      const callId = `c${step}_${i}`;
      const events: AgentEvent[] = [
        ev.master({ kind: "tool_call", step, callId, name: "grep", parameters: "{}" }),
        ev.master({ kind: "tool_result", callId, response: "ok", responseSize: 2, status: "success" }),
      ];
      for (const event of events) turn = applyEvent(turn, event);
    }
  return applyEvent(turn, { type: "turn:ended", turnId: "t1", status: "completed", stats: emptyStats(), endedAt: at });
}

function sessionFile(turn: ChatTurn): string {
  const file: SessionFile = {
    format: SESSION_FILE_FORMAT,
    version: SESSION_FILE_VERSION,
    exportedAt: new Date().toISOString(),
    session: { title: "Many calls", createdAt: new Date().toISOString() },
    turns: [{ turn, toolOutputs: [], modelCalls: [] }],
  };
  return JSON.stringify(file);
}

async function cookieOf(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/health`);
  await res.arrayBuffer();
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
}

function ask<T>(socket: Socket, name: string, input: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.emit(name, input, (ack: { ok: boolean; data?: T; message?: string }) =>
      ack.ok ? resolve(ack.data as T) : reject(new Error(`${name}: ${ack.message}`)),
    );
  });
}

async function probe(label: string, baseUrl: string, attack: () => Promise<string>): Promise<void> {
  const bystander = startBystander(baseUrl);
  const from = process.hrtime.bigint();
  const started = performance.now();
  let outcome: string;
  try {
    outcome = await attack();
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    outcome = `failed: ${(error as Error).message}${cause ? ` (${cause.message})` : ""}`;
  }
  const tookMs = performance.now() - started;
  const stall = await bystander.stop();
  const blockMs = longestBlock(from, process.hrtime.bigint());
  console.log(
    `${label}\n  answered in ${(tookMs / 1000).toFixed(2)} s: ${outcome}\n  bystander: ${stall.requests} requests (${stall.failed} failed), slowest ${stall.maxMs.toFixed(0)} ms\n  app's longest event-loop block: ${blockMs > 0 ? `${blockMs.toFixed(0)} ms` : "none over 20 ms"}`,
  );
}

async function main(): Promise<void> {
  const calls = Number(process.argv[2] ?? 10_000);
  const mongo = await startMongoJavaServer();
  const model = await startScriptedOpenAIServer((request, index): ScriptedResponse => {
    const hasResults = (request.body?.messages ?? []).some((m: { role: string }) => m.role === "tool");
    if (index === 0 && !hasResults) {
      const toolCalls = Array.from({ length: calls }, (_, i) => ({
        index: i,
        id: `call_${i}`,
        type: "function",
        function: { name: "lookup", arguments: "{}" },
      }));
      return { type: "stream", steps: [{ delta: { role: "assistant", tool_calls: toolCalls }, finishReason: "tool_calls" }] };
    }
    return { type: "stream", steps: [{ delta: { role: "assistant", content: "Done." }, finishReason: "stop" }] };
  });
  // Built before the app starts: building them keeps this process busy for seconds, long
  // enough for a kept-alive connection to the app to be closed under it.
  const oneStep = sessionFile(turnWithCalls(1, 48_000));
  const manySteps = sessionFile(turnWithCalls(48, 1_000));
  const atBound = sessionFile(turnWithCalls(20, 1_000));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "delegate-attack-"));
  const app = await startAppProcess({
    mongoUri: `${mongo.uri}attacks`,
    dataDir,
    quiet: !process.env.ATTACK_VERBOSE,
    env: { MODEL: "scripted", OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test", LOOP_BLOCKS_FILE },
    nodeArgs: [
      "--import",
      pathToFileURL(path.resolve("load/support/loop-blocks.mjs")).href,
      // ATTACK_PROFILE_DIR=<dir> writes the app's CPU profile there, to see what a stall was.
      ...(process.env.ATTACK_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.ATTACK_PROFILE_DIR}`] : []),
    ],
  });
  try {
    const cookie = await cookieOf(app.baseUrl);
    const post = async (body: string) => {
      const res = await fetch(`${app.baseUrl}/api/sessions/import`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", origin: app.baseUrl },
        body,
      });
      const answer = (await res.json()) as { error?: { message: string } };
      return `${res.status} ${answer.error?.message ?? "imported"}`;
    };
    // ATTACK_PROBES=rest,import,live picks some (all by default).
    const only = new Set((process.env.ATTACK_PROBES ?? "rest,import,live").split(","));
    // The same requests with nothing else going on: what "slowest" is at rest on this machine.
    if (only.has("rest"))
      await probe("at rest: no attack, two seconds", app.baseUrl, () => new Promise((resolve) => setTimeout(() => resolve("-"), 2_000)));
    if (only.has("import"))
      await probe(`import: one step of 48,000 tool calls (${(oneStep.length / 1e6).toFixed(1)} MB)`, app.baseUrl, () => post(oneStep));
    if (only.has("import"))
      await probe(`import: 48 steps of 1,000 tool calls (${(manySteps.length / 1e6).toFixed(1)} MB)`, app.baseUrl, () => post(manySteps));
    if (only.has("import"))
      await probe(`import: 20 steps of 1,000 tool calls, the most one import takes`, app.baseUrl, () => post(atBound));

    if (!only.has("live")) return;
    const socket = io(app.baseUrl, { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false, forceNew: true });
    try {
      const { sessionId } = await ask<{ sessionId: string }>(socket, "session:create", { title: "Many calls live" });
      await ask(socket, "session:join", { sessionId });
      await probe(`live: one model reply with ${calls.toLocaleString("en")} tool calls`, app.baseUrl, async () => {
        const ended = new Promise<string>((resolve) =>
          socket.on("agent:event", (event: { type: string; status?: string }) => {
            if (event.type === "turn:ended") resolve(`turn ${event.status}`);
          }),
        );
        await ask(socket, "turn:send", { sessionId, text: "Look everywhere" });
        return ended;
      });
    } finally {
      socket.disconnect();
    }
  } finally {
    await app.stop();
    await model.close();
    await mongo.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(LOOP_BLOCKS_FILE, { force: true });
  }
}

await main();
