import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expand, label, loadCorpus } from "./corpus";
import { checkHttpReply, sendHttpCase, type HttpCase } from "./http-cases";
import { startHostileServer, type HostileServer } from "./hostile-server";
import { checkOutcome, sendCase, type SocketCase } from "./socket-cases";
import { buildHostileWorkspace, checkToolOutcome, type ToolCase, type ToolOutcome } from "./tool-cases";

/**
 * The corpus cases marked `finding`: behaviour the server does not have yet. Kept apart
 * so the rest of the suite stays green; each fails until its defect is fixed, and then
 * should lose its `finding` mark and join the main files.
 */
const socketCases = loadCorpus<SocketCase>("socket-commands.json").cases.filter((c) => c.finding);
const httpCases = loadCorpus<HttpCase>("http-requests.json").cases.filter((c) => c.finding);
const toolCases = loadCorpus<ToolCase>("file-tools.json").cases.filter((c) => c.finding);

let server: HostileServer;
let workspace: Awaited<ReturnType<typeof buildHostileWorkspace>>;
beforeAll(async () => {
  server = await startHostileServer("hostile_findings");
  workspace = await buildHostileWorkspace();
});
afterAll(async () => {
  await server?.close();
  await workspace?.cleanup();
});

describe("socket findings", () => {
  it.each(socketCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const socket = await server.harness.client(server.attackerCookie);
    checkOutcome(c, await sendCase(socket, c, { ...server.vars, fresh: "" }));
    socket.disconnect();
  });
});

describe("HTTP findings", () => {
  it.each(httpCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    checkHttpReply(c, await sendHttpCase(server.harness.baseUrl, server.attackerCookie, c, server.vars));
  });
});

describe("tool findings", () => {
  // A catastrophic regex blocks the thread running it: run it in a child process that is killed if it overstays.
  it.each(toolCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    checkToolOutcome(c, await runToolInChild(c, workspace.ws, 10_000));
  }, 20_000);
});

function runToolInChild(c: ToolCase, workspaceDir: string, killAfterMs: number): Promise<ToolOutcome> {
  const script = `
    const { fileReadTool, grepTool, listFilesTool } = await import(${JSON.stringify(`${process.cwd()}/lib/tools/index.ts`)});
    const tools = { file_read: fileReadTool, list_files: listFilesTool, grep: grepTool };
    const tool = tools[process.env.TOOL];
    const started = Date.now();
    // Other chats share this event loop: record the longest it stalls while the tool runs.
    let last = Date.now(), lagMs = 0;
    const ticker = setInterval(() => { lagMs = Math.max(lagMs, Date.now() - last - 20); last = Date.now(); }, 20);
    const stop = () => { clearInterval(ticker); lagMs = Math.max(lagMs, Date.now() - last - 20); };
    try {
      const text = await tool.run(tool.parse(JSON.parse(process.env.ARGS)), { workspaceDir: process.env.WS, signal: new AbortController().signal });
      stop();
      process.stdout.write(JSON.stringify({ ok: true, text, ms: Date.now() - started, lagMs }));
    } catch (error) {
      stop();
      process.stdout.write(JSON.stringify({ ok: false, message: String(error.message), ms: Date.now() - started, lagMs }));
    }`;
  // A file, not `-e`: the tool may start worker threads, which inherit the parent's flags.
  const file = path.join(workspaceDir, "..", "run-tool.mts");
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      env: { ...process.env, TOOL: c.tool, ARGS: JSON.stringify(expand(c.args)), WS: workspaceDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("exit", () => {
      clearTimeout(timer);
      if (out) return resolve(JSON.parse(out) as ToolOutcome);
      if (Date.now() - started >= killAfterMs) {
        return resolve({ ok: false, message: `still running after ${killAfterMs} ms; killed`, ms: Date.now() - started });
      }
      reject(new Error(`the tool process failed: ${err.slice(0, 500)}`));
    });
  });
}

it("every finding names its defect", () => {
  for (const c of [...socketCases, ...httpCases, ...toolCases]) expect(c.finding!.length).toBeGreaterThan(20);
});
