import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "@/lib/tools/types";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { scriptedModel } from "@/test/support/agent/scripted-model";
import { openSession, request, runtimeWith, startHarness, waitFor, type Harness } from "@/test/support/server/app-harness";

/**
 * Shared tool pools take turns between people (see grep-fairness.test.ts); that needs each
 * tool call to know whose it is, also inside subagents. Here a tool records what it is told.
 */
const seen: { prompt: string; ownerId: string | undefined }[] = [];
const whoami: Tool<{ tag: string }> = {
  spec: {
    name: "whoami",
    description: "Records who the call is for.",
    parameters: { type: "object", properties: { tag: { type: "string" } } },
  },
  parse: (args) => args as { tag: string },
  run: async (args, context) => {
    seen.push({ prompt: args.tag, ownerId: context.ownerId });
    return "noted";
  },
};

// The master calls whoami and spawns an explore subagent that calls it too; then answers.
const model = scriptedModel((req) => {
  const prompt = String(req.messages.find((m) => m.role === "user")?.content ?? "");
  const tag = prompt.split("\n").at(-1)!;
  const last = req.messages.at(-1)!;
  const isChild = req.messages[0]?.content.toString().includes("explore subagent");
  if (last.role === "tool") return { text: "done" };
  if (isChild) return { toolCalls: [{ id: "c1", name: "whoami", args: { tag: `${tag}/child` } }] };
  return {
    toolCalls: [
      { id: "m1", name: "whoami", args: { tag } },
      { id: "m2", name: "subagent", args: { agent: "explore", task: tag } },
    ],
  };
});

let harness: Harness;
beforeAll(async () => {
  const explore = BUILTIN_DEFINITIONS.find((d) => d.name === "explore")!;
  harness = await startHarness("tool-owner", {
    runner: runtimeWith(model, { tools: [whoami], definitions: [{ ...explore, allowedTools: ["whoami"] }] }),
  });
});
afterAll(async () => {
  await harness?.close();
});

describe("the person a tool call is for", () => {
  it("is the sender, in the master and in its subagents, the same across one person's chats", async () => {
    const ann = await openSession(harness);
    const annAgain = await openSession(harness, ann.cookie);
    const bob = await openSession(harness);
    for (const [who, { socket, sessionId }] of [
      ["ann", ann],
      ["ann-2", annAgain],
      ["bob", bob],
    ] as const) {
      const sent = await request(socket, "turn:send", { sessionId, text: who });
      expect(sent.ok).toBe(true);
    }
    await waitFor(() => seen.length === 6, 15_000, "six whoami calls");
    const owner = (tag: string) => seen.find((s) => s.prompt === tag)?.ownerId;
    expect(owner("ann")).toMatch(/\S/);
    expect(owner("ann/child")).toBe(owner("ann"));
    expect(owner("ann-2")).toBe(owner("ann"));
    expect(owner("ann-2/child")).toBe(owner("ann"));
    expect(owner("bob")).toMatch(/\S/);
    expect(owner("bob/child")).toBe(owner("bob"));
    expect(owner("bob")).not.toBe(owner("ann"));
  });
});
