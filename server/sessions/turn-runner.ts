import type { ChatTurn, Publish, TurnStats } from "@/lib/contracts";

/** What a DroneSession needs from the agent runtime (lib/agent implements it). */
export type ControlResult = { ok: true } | { ok: false; message: string };

export interface TurnHandle {
  done: Promise<{ status: "completed" | "failed" | "cancelled"; response: string; stats: TurnStats; error?: string }>;
  cancel(): void;
  steer(runId: string, message: string): ControlResult;
  kill(runId: string): ControlResult;
}

export interface TurnRunner {
  startTurn(input: { sessionId: string; turnId: string; prompt: string; history: ChatTurn[]; publish: Publish }): TurnHandle;
}
