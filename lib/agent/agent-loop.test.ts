import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Tool } from "@/lib/tools/types";
import { startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { scriptedModel, toolResults } from "@/test/support/agent/scripted-model";
import { dataOf } from "@/test/support/turn/agent-data";

let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeEach(async () => {
  ws = await tempWorkspace();
});
afterEach(() => ws.cleanup());

/** A tool that counts how many of its calls run at once; later calls finish first. */
function countingTool(): Tool<{ n: number }> & { maxActive: number } {
  let active = 0;
  const tool = {
    maxActive: 0,
    spec: { name: "slow", description: "Waits a little.", parameters: { type: "object", properties: { n: { type: "number" } } } },
    parse: (args: unknown) => args as { n: number },
    run: async ({ n }: { n: number }) => {
      active++;
      tool.maxActive = Math.max(tool.maxActive, active);
      await new Promise((resolve) => setTimeout(resolve, 40 - (n % 4) * 10));
      active--;
      return `done ${n}`;
    },
  };
  return tool;
}

describe("agent loop: tool calls of one step", () => {
  it("runs at most four workspace calls at once and returns every result in call order", async () => {
    const tool = countingTool();
    const calls = Array.from({ length: 12 }, (_, n) => ({ id: `c${n}`, name: "slow", args: { n } }));
    const model = scriptedModel((req, i) => (i === 0 ? { toolCalls: calls } : { text: "ok" }));
    const run = startTestTurn({ model, workspaceDir: ws.dir, tools: [tool] }, "many calls");
    expect((await run.result).status).toBe("completed");
    expect(tool.maxActive).toBe(4);
    const results = toolResults(model.requests[1]!.messages);
    expect(results.map((r) => [r.toolCallId, r.content])).toEqual(calls.map((c) => [c.id, `done ${c.args.n}`]));
    expect(dataOf(run.events, "tool_result", "master")).toHaveLength(12);
  });
});
