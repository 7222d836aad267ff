import { SUMMARY_TAG, renderTranscript } from "@/lib/context/compact";
import type { ChatMessage } from "@/lib/model/types";
import type { SubagentDefinition } from "./definitions";
import { contentText } from "@/lib/model/content";

/**
 * The spawn packet: everything a subagent gets, in labelled sections so it can tell
 * its task from its reference material and its constraints. The limited context —
 * the last 5 messages of the parent conversation — travels as rendered text rather than
 * raw messages: a slice of raw messages could cut an assistant tool call from its results,
 * which providers reject, and the child must not take the parent's turns for its own.
 */

export const PARENT_CONTEXT_MESSAGES = 5;

export interface SpawnPacket {
  runId: string;
  task: string;
  objective?: string;
  artifactRefs: string[];
  parentSummary?: string;
  recentParentMessages: string;
  depth: number;
  maxDepth: number;
  workspaceDir: string;
}

export function buildSpawnPacket(
  input: Omit<SpawnPacket, "recentParentMessages" | "parentSummary"> & { parentMessages: readonly ChatMessage[] },
): SpawnPacket {
  const { parentMessages, ...rest } = input;
  const summary = parentMessages.find((m) => m.role === "system" && m.content.startsWith(SUMMARY_TAG));
  const recent = parentMessages.filter((m) => m.role !== "system").slice(-PARENT_CONTEXT_MESSAGES);
  return {
    ...rest,
    parentSummary: summary && contentText(summary.content).slice(SUMMARY_TAG.length).trim(),
    recentParentMessages: renderTranscript(recent, 1_500),
  };
}

export function renderSpawnPacket(packet: SpawnPacket): string {
  const canSpawn = packet.depth + 1 < packet.maxDepth;
  const sections = [
    "## Spawn packet",
    `Run id: ${packet.runId}`,
    `Depth: ${packet.depth} (max spawn depth ${packet.maxDepth}; you ${canSpawn ? "may" : "may not"} spawn subagents)`,
    `Workspace: ${packet.workspaceDir}`,
    ...background(packet),
  ];
  return sections.join("\n");
}

/**
 * What a remote agent (A2A) is sent: the task first, as the request it answers, then the
 * packet's background. Not the run id, depth or workspace: they name things only this
 * server has.
 */
export function renderRemoteTask(packet: SpawnPacket): string {
  return [packet.task, ...background(packet)].join("\n");
}

/** The sections any subagent reads for background, each after a blank line. */
function background(packet: SpawnPacket): string[] {
  const sections: string[] = [];
  if (packet.objective) sections.push("", "## Objective", packet.objective);
  if (packet.artifactRefs.length) sections.push("", "## Artifact references", ...packet.artifactRefs.map((r) => `- ${r}`));
  if (packet.parentSummary) sections.push("", "## Parent summary", packet.parentSummary);
  if (packet.recentParentMessages) {
    sections.push(
      "",
      `## Recent parent conversation (last ${PARENT_CONTEXT_MESSAGES} messages, for background only)`,
      packet.recentParentMessages,
    );
  }
  return sections;
}

/** The child's opening messages: definition prompt + packet, then the task as the user turn. */
export function childMessages(definition: SubagentDefinition, packet: SpawnPacket): ChatMessage[] {
  return [
    { role: "system", content: `${definition.systemPrompt}\n\n${renderSpawnPacket(packet)}` },
    { role: "user", content: packet.task },
  ];
}
