import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { AgentEvent, AgentEventOf, AgentEventType, ChatTurn, SubagentProcess } from "@/lib/contracts";
import { processInTurn } from "@/lib/turn/paths";
import { agentEventSchema } from "@/lib/contracts";
import type { ChatModel } from "@/lib/model/types";
import { ToolError, type Tool } from "@/lib/tools/types";
import { BUILTIN_DEFINITIONS, type SubagentDefinition } from "@/lib/agent/definitions";
import { createAgentRuntime, type AgentRuntimeDeps, type TurnHandle, type TurnInput, type TurnResult } from "@/lib/agent/runtime";

/** Test wiring for the runtime: a real temp-dir workspace, collected (and schema-checked) events. */

export const DEFAULT_LIMITS: AgentRuntimeDeps["limits"] = {
  maxSpawnDepth: 3,
  maxChildrenPerAgent: 5,
  maxResultTokens: 4_000,
  subagentTimeoutMs: 10_000,
  maxSteps: 10,
  contextTokens: 100_000,
  resultFooter: true,
  turnTimeoutMs: 600_000,
};

/**
 * `wait_forever`: a tool that never returns and ignores the abort signal, so a test sees
 * the runtime stop a call without the tool's help; `started` resolves once it runs.
 */
export function hangingTool(): { tool: Tool<Record<string, never>>; started: Promise<void> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const tool: Tool<Record<string, never>> = {
    spec: { name: "wait_forever", description: "Never returns.", parameters: { type: "object", properties: {} } },
    parse: () => ({}),
    run: () => {
      markStarted();
      return new Promise<string>(() => undefined);
    },
  };
  return { tool, started };
}

/** A minimal real tool so runtime tests do not depend on the workspace tool set. */
export const readNoteTool: Tool<{ name: string }> = {
  spec: {
    name: "read_note",
    description: "Read a note from the workspace.",
    parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
  parse: (args) => {
    const parsed = z.object({ name: z.string().regex(/^[a-z0-9_-]+$/) }).safeParse(args);
    if (!parsed.success) throw new ToolError("name must be a plain note name");
    return parsed.data;
  },
  run: async (args, context) => {
    try {
      return await readFile(join(context.workspaceDir, `${args.name}.txt`), "utf8");
    } catch {
      throw new ToolError(`No note named ${args.name}`);
    }
  },
};

export async function tempWorkspace(files: Record<string, string> = {}): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "delegate-agent-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface TurnRun {
  handle: TurnHandle;
  events: AgentEvent[];
  result: Promise<TurnResult>;
}

export interface HarnessOptions {
  model: ChatModel;
  systemModel?: ChatModel;
  workspaceDir: string;
  tools?: AgentRuntimeDeps["tools"];
  definitions?: SubagentDefinition[];
  limits?: Partial<AgentRuntimeDeps["limits"]>;
  warnings?: string[];
  onEvent?: (event: AgentEvent, run: TurnRun) => void;
  /** Traces the turn (see lib/telemetry/turn-tracer.ts). */
  tracer?: AgentRuntimeDeps["tracer"];
}

/** `extra.turnId` also prefixes the run ids, so a later turn's ids do not collide with "t1"'s. */
export function startTestTurn(
  options: HarnessOptions,
  prompt: string,
  history: ChatTurn[] = [],
  extra: Pick<TurnInput, "retry" | "recordModelCall"> & { turnId?: string } = {},
): TurnRun {
  let ids = 0;
  const prefix = extra.turnId ? `${extra.turnId}-` : "";
  const runtime = createAgentRuntime({
    model: options.model,
    systemModel: options.systemModel,
    tools: options.tools ?? [readNoteTool],
    definitions: options.definitions ?? [...BUILTIN_DEFINITIONS.map((d) => ({ ...d, allowedTools: [...d.allowedTools, "read_note"] }))],
    workspaceDir: options.workspaceDir,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    log: { warn: (msg) => options.warnings?.push(msg) },
    newId: () => `${prefix}run${++ids}`,
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  const events: AgentEvent[] = [];
  const run = {} as TurnRun;
  run.events = events;
  run.handle = runtime.startTurn({
    sessionId: "s1",
    turnId: extra.turnId ?? "t1",
    prompt,
    history,
    ...(extra.retry ? { retry: extra.retry } : {}),
    ...(extra.recordModelCall ? { recordModelCall: extra.recordModelCall } : {}),
    publish: (event) => {
      // Every event must satisfy the shared contract the server validates against.
      agentEventSchema.parse(event);
      events.push(event);
      options.onEvent?.(event, run);
    },
  });
  run.result = run.handle.done;
  return run;
}

/** Every step's text of the master, joined as it streamed (no separators added). */
export function masterText(turn: ChatTurn): string {
  return turn.steps.map((s) => s.text).join("");
}

export function ofType<K extends AgentEventType>(events: readonly AgentEvent[], type: K): AgentEventOf<K>[] {
  return events.filter((e): e is AgentEventOf<K> => e.type === type);
}

/** A finished run's whole process, as the turn's fold holds it (what the panels and storage get). */
export async function processOfRun(run: TurnRun, runId: string): Promise<SubagentProcess> {
  const process = processInTurn((await run.result).turn, runId);
  if (!process) throw new Error(`run ${runId} is not in the turn`);
  return process;
}
