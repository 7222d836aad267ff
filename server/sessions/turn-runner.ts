import type { AgentRuntime } from "@/lib/agent/runtime";

/** What a DroneSession needs from the agent runtime: starting turns (and their handles). */
export type { TurnHandle } from "@/lib/agent/runtime";
export type TurnRunner = Pick<AgentRuntime, "startTurn">;
