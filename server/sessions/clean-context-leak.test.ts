import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { MASTER_PROMPT_MARKER } from "@/lib/agent/prompts";
import type { SessionEvent } from "@/lib/contracts";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { processInTurn } from "@/lib/turn/paths";
import {
  scriptedReply,
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
  type ScriptedRequest,
} from "@/test/support/model/scripted-openai-server";
import { openSession, recordEvents, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * The clean-context rule (docs/architecture.md) through everything real: the OpenAI adapter over HTTP to a scripted
 * local model server, the server's DroneSession, MongoDB and a restarted app process.
 * Two children do internal work a parent must never see — reasoning, interim step text
 * ("Let me read the file."), a nested file read whose contents are marked, and one child
 * that runs out of steps while still writing interim lines. Every request the master's
 * model receives — live, on a later turn of the same process, and after a restart when
 * the context is rebuilt from MongoDB alone — is checked on the wire: none of it, and a
 * subagent result holds only the fields listed in ALLOWED_RESULT_LINES. The master's own
 * reasoning, streamed and stored with its steps, is held to the same rule.
 */

const MARK = "ZZLEAK";
const ANSWER_A = "Release 2.0 ships on May 3.";
/** Marks the master's own reasoning, which its later requests must not hold either. */
const THINK = "ZZTHINK";

type WireMessage = { role: string; content: string | null; tool_call_id?: string };
const messagesOf = (r: ScriptedRequest): WireMessage[] => r.body.messages;
const isMaster = (r: ScriptedRequest) => String(messagesOf(r)[0]?.content ?? "").startsWith(MASTER_PROMPT_MARKER);
const argumentChunks = (value: unknown) => [JSON.stringify(value)];

function handler(r: ScriptedRequest) {
  const messages = messagesOf(r);
  const last = messages.at(-1)!;
  if (isMaster(r)) {
    if (last.role === "tool" && last.tool_call_id === "m_notes")
      return scriptedReply({ reasoning: [`${THINK}_STEP_1`], text: ["The notes say nothing."] });
    if (last.role === "tool") return scriptedReply({ text: ["Both helpers reported."] });
    if (String(last.content).startsWith("Ponder")) {
      return scriptedReply({
        reasoning: [`${THINK}_STEP_0 `, "which notes?"],
        text: ["Reading the notes. "],
        toolCalls: [{ id: "m_notes", name: "file_read", argumentChunks: argumentChunks({ path: "notes.md" }) }],
      });
    }
    if (String(last.content).startsWith("Investigate")) {
      return scriptedReply({
        text: ["Asking two helpers. "],
        toolCalls: [
          { id: "m_a", name: "subagent", argumentChunks: argumentChunks({ agent: "explore", task: "TASK_A: find the ship date" }) },
          { id: "m_b", name: "subagent", argumentChunks: argumentChunks({ agent: "explore", task: "TASK_B: list every risk" }) },
        ],
      });
    }
    return scriptedReply({ text: ["Noted."] });
  }
  const task = String(messages.find((m) => m.role === "user")?.content ?? "");
  const step = messages.filter((m) => m.role === "assistant").length;
  if (task.includes("TASK_A")) {
    if (step === 0) {
      return scriptedReply({
        reasoning: [`${MARK}_REASONING_A `, "which file?"],
        text: [`${MARK}_INTERIM_A `, "Let me read the file."],
        toolCalls: [{ id: "a_read", name: "file_read", argumentChunks: argumentChunks({ path: "plan.md" }) }],
      });
    }
    return scriptedReply({ text: [ANSWER_A] });
  }
  // TASK_B never answers: every step is interim text and another read, until the step limit.
  return scriptedReply({
    reasoning: [`${MARK}_REASONING_B_${step}`],
    text: [`${MARK}_INTERIM_B_${step} still looking.`],
    toolCalls: [{ id: `b_read_${step}`, name: "file_read", argumentChunks: argumentChunks({ path: "plan.md" }) }],
  });
}

/**
 * The lines a subagent result may hold, and nothing else: the narrative cast's tag and
 * status lines, an error for a run that did not complete, the condensation level, the final
 * answer alone, and (RESULT_FOOTER, on by default) the stats footer.
 */
const ALLOWED_RESULT_LINES: Record<string, RegExp> = {
  tag: /^\[Subagent Result: explore-[A-Za-z0-9]{1,8}\]$/,
  status: /^Status: (Completed|Failed|Killed|Timed out \(watchdog\))$/,
  error: /^Error: Reached its limit of 3 steps without a final answer\.$/,
  condensation: /^Condensation: Level 1 \(passthrough\)$/,
  blank: /^$/,
  answer: new RegExp(`^(${ANSWER_A.replace(/\./g, "\\.")}|\\(no answer\\))$`),
  footerRule: /^---$/,
  footer: /^Runtime: \d+\.\ds \| Steps: \d+ \| Tokens: \d+ \| Cost: \$\d+\.\d{4}$/,
};

function resultFields(content: string): string[] {
  return content.split("\n").map((line) => {
    const field = Object.entries(ALLOWED_RESULT_LINES).find(([, pattern]) => pattern.test(line))?.[0];
    if (!field) throw new Error(`A subagent result line the master may not see: ${JSON.stringify(line)}`);
    return field;
  });
}

let harness: Harness;
let server: ScriptedOpenAIServer;
let workspace: string;

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "delegate-leak-"));
  writeFileSync(path.join(workspace, "plan.md"), `# Plan\n${ANSWER_A}\n${MARK}_FILE_CONTENTS\n`);
  writeFileSync(path.join(workspace, "notes.md"), "Nothing here yet.\n");
  server = await startScriptedOpenAIServer(handler);
  const model = createOpenAIModel({ baseURL: server.url, model: "scripted", timeoutMs: 10_000, maxRetries: 0 });
  const definitions = BUILTIN_DEFINITIONS.map((d) => (d.name === "explore" ? { ...d, maxSteps: 3 } : d));
  harness = await startHarness("clean-leak", { runner: runtimeWith(model, { workspaceDir: workspace, definitions }) });
});
afterAll(async () => {
  await harness?.close();
  await server?.close();
  rmSync(workspace, { recursive: true, force: true });
});

async function runTurn(h: Harness, cookie: string, sessionId: string, text: string): Promise<SessionEvent[]> {
  const socket = await h.client(cookie);
  const events = recordEvents(socket);
  const joined = await request(socket, "session:join", { sessionId });
  if (!joined.ok) throw new Error(joined.message);
  const sent = await request(socket, "turn:send", { sessionId, text });
  if (!sent.ok) throw new Error(sent.message);
  await waitFor(() => events.some((e) => e.type === "turn:ended"), 30_000, "the turn to end");
  socket.disconnect();
  return events;
}

describe("clean context through the HTTP adapter, the server, MongoDB and a restart", () => {
  it("no master request ever holds a subagent's reasoning, interim step text, nested tool output or step-limit lines", async () => {
    const { cookie, sessionId } = await openSession(harness);
    const live = await runTurn(harness, cookie, sessionId, "Investigate the ship date and the risks");

    // The internals were produced, streamed and stored for audit…
    const completes = live.filter((e): e is Extract<SessionEvent, { type: "agent:complete" }> => e.type === "agent:complete");
    await (await harness.app.registry.peek(sessionId))?.drain();
    const [stored] = await harness.store.loadHistory(sessionId);
    const processes = completes.map((c) => processInTurn(stored!, c.runId)!);
    expect(processes.map((p) => p.status).sort()).toEqual(["error", "success"]);
    expect(JSON.stringify(processes)).toContain(`${MARK}_INTERIM_A`);
    expect(JSON.stringify(processes)).toContain(`${MARK}_REASONING_B_2`);
    const failed = processes.find((p) => p.status === "error")!;
    expect(failed).toMatchObject({ endReason: "failed", response: "", error: "Reached its limit of 3 steps without a final answer." });
    expect(failed.steps).toHaveLength(3);

    // …a later turn in the same process, then one after a restart (context rebuilt from MongoDB alone).
    await runTurn(harness, cookie, sessionId, "follow up: anything else?");
    harness = await harness.restart();
    await runTurn(harness, cookie, sessionId, "follow up after the restart");

    const masters = server.requests.filter(isMaster);
    expect(masters).toHaveLength(4); // spawn, read results, follow-up, follow-up after the restart
    for (const request of masters) expect(JSON.stringify(request.body)).not.toContain(MARK);

    const results = masters.map((r) => messagesOf(r).filter((m) => m.role === "tool"));
    expect(results[0]).toEqual([]);
    const liveResults = results[1]!;
    expect(liveResults.map((m) => m.tool_call_id)).toEqual(["m_a", "m_b"]);
    // The same clean results, under the same ids, live, rebuilt in-process and rebuilt after the restart.
    expect(results[2]).toEqual(liveResults);
    expect(results[3]).toEqual(liveResults);

    const [a, b] = liveResults.map((m) => String(m.content));
    expect(resultFields(a!)).toEqual(["tag", "status", "condensation", "blank", "answer", "blank", "footerRule", "footer"]);
    expect(a).toContain(`\n\n${ANSWER_A}\n\n---\n`);
    expect(resultFields(b!)).toEqual(["tag", "status", "error", "condensation", "blank", "answer", "blank", "footerRule", "footer"]);
    expect(b).toContain(
      "Status: Failed\nError: Reached its limit of 3 steps without a final answer.\nCondensation: Level 1 (passthrough)\n\n(no answer)\n",
    );
  });

  it("no master request ever holds the master's own reasoning, though it is streamed and stored", async () => {
    const { cookie, sessionId } = await openSession(harness);
    const before = server.requests.length;
    const live = await runTurn(harness, cookie, sessionId, "Ponder the notes");

    // The master's reasoning was streamed and stored with its steps…
    expect(
      dataOf(live, "thinking", "master")
        .map((d) => d.text)
        .join(""),
    ).toBe(`${THINK}_STEP_0 which notes?${THINK}_STEP_1`);
    await (await harness.app.registry.peek(sessionId))?.drain();
    const [stored] = await harness.store.loadHistory(sessionId);
    expect(stored!.steps.map((s) => s.thinking)).toEqual([`${THINK}_STEP_0 which notes?`, `${THINK}_STEP_1`]);

    // …and never sent back: not in the turn's next step, a later turn, nor after a restart.
    await runTurn(harness, cookie, sessionId, "follow up: anything else?");
    harness = await harness.restart();
    await runTurn(harness, cookie, sessionId, "follow up after the restart");

    const masters = server.requests.slice(before).filter(isMaster);
    expect(masters).toHaveLength(4); // the read, its answer, follow-up, follow-up after the restart
    for (const request of masters) expect(JSON.stringify(request.body)).not.toContain(THINK);
    // The rebuilt context did hold the master's steps: their text, the read and its answer.
    const rebuilt = JSON.stringify(masters[3]!.body);
    for (const seen of ["Reading the notes.", "Nothing here yet.", "The notes say nothing."]) expect(rebuilt).toContain(seen);
  });
});
