import { describe, expect, it } from "vitest";
import { SUMMARY_TAG } from "@/lib/context/compact";
import type { ChatMessage } from "@/lib/model/types";
import { BUILTIN_DEFINITIONS } from "./definitions";
import { buildSpawnPacket, childMessages, renderRemoteTask } from "./spawn-packet";
import { contentText } from "@/lib/model/content";

const parent: ChatMessage[] = [
  { role: "system", content: "master prompt" },
  { role: "system", content: `${SUMMARY_TAG}\nEarlier the user asked about bugs.` },
  ...Array.from({ length: 6 }, (_, i): ChatMessage => ({ role: "user", content: `message ${i}` })),
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "subagent", arguments: '{"agent":"explore"}' }] },
];

describe("spawn packet", () => {
  it("carries task, objective, artifacts, parent summary, depth limits, workspace and the last five parent messages", () => {
    const packet = buildSpawnPacket({
      runId: "r1",
      task: "Find X",
      objective: "Ship safely",
      artifactRefs: ["docs/plan.md"],
      depth: 2,
      maxDepth: 3,
      workspaceDir: "/ws",
      parentMessages: parent,
    });
    const [system, user] = childMessages(BUILTIN_DEFINITIONS[0]!, packet);
    expect(user).toEqual({ role: "user", content: "Find X" });
    const text = contentText(system!.content);
    expect(text.startsWith(BUILTIN_DEFINITIONS[0]!.systemPrompt)).toBe(true);
    expect(text).toContain("Run id: r1\nDepth: 2 (max spawn depth 3; you may not spawn subagents)\nWorkspace: /ws");
    expect(text).toContain("## Objective\nShip safely");
    expect(text).toContain("## Artifact references\n- docs/plan.md");
    expect(text).toContain("## Parent summary\nEarlier the user asked about bugs.");
    expect(text).not.toContain("master prompt");
    expect(text).not.toContain("message 1\n");
    expect(text).toContain("user: message 2\nuser: message 3\nuser: message 4\nuser: message 5\nassistant: [called subagent(");
  });

  it("tells a depth-1 child it may spawn", () => {
    const packet = buildSpawnPacket({
      runId: "r",
      task: "t",
      artifactRefs: [],
      depth: 1,
      maxDepth: 3,
      workspaceDir: "/ws",
      parentMessages: [],
    });
    expect(childMessages(BUILTIN_DEFINITIONS[1]!, packet)[0]!.content).toContain("you may spawn subagents");
  });

  it("sends a remote agent the task first, then the background, and nothing that names this server's run, depth or workspace", () => {
    const packet = buildSpawnPacket({
      runId: "r9",
      task: "stream the sales report",
      objective: "Plan the quarter",
      artifactRefs: [],
      depth: 1,
      maxDepth: 3,
      workspaceDir: "/srv/secret-workspace",
      parentMessages: parent,
    });
    const text = renderRemoteTask(packet);
    expect(text.startsWith("stream the sales report\n\n## Objective\nPlan the quarter")).toBe(true);
    expect(text).toContain("## Parent summary\nEarlier the user asked about bugs.");
    expect(text).not.toMatch(/r9|secret-workspace|Depth:/);
  });
});
