import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { emptyStats, type SubagentProcess, type ToolCall } from "@/lib/contracts";
import { castNarrative } from "@/lib/agent/narrative";
import { finishedProcess } from "@/test/support/turn/event-builders";
import { SubagentExecution, ToolCallView } from "./subagent-execution";

const ANSWER = "## Found\n\n**Three** open bugs in `tide.py`.";
const spawnCall = (panel: SubagentProcess, response: string): ToolCall => ({
  callId: "c1",
  name: "subagent",
  parameters: "{}",
  response,
  responseSize: response.length,
  status: panel.status === "success" ? "success" : "error",
  subagent: panel,
});
const cast = (panel: SubagentProcess) =>
  castNarrative({
    label: "explore-r1",
    endReason: panel.endReason ?? "completed",
    level: 1,
    body: panel.response,
    stats: { ...emptyStats(), steps: 2, runtimeMs: 1500 },
    originalTokens: 9,
    bodyTokens: 9,
    footer: true,
    ...(panel.error ? { error: panel.error } : {}),
  });
const grep: ToolCall = {
  callId: "g1",
  name: "grep",
  parameters: JSON.stringify({ pattern: "bug", path: "src/" }),
  response: "",
  responseSize: 0,
  status: "running",
};

describe("a subagent panel's states, as rendered", () => {
  it("while running, its collapsed header names the call in flight and counts its calls", () => {
    const panel = finishedProcess("r1", "", {
      status: "running",
      endReason: undefined,
      endedAt: undefined,
      steps: [{ text: "Let me look.", thinking: "", toolCalls: [grep] }],
    });
    const html = renderToString(<SubagentExecution panel={panel} />);
    expect(html).toMatch(/data-testid="subagent-activity"[^>]*>grep &quot;bug&quot; src\/</);
    expect(html).toMatch(/data-testid="subagent-counts"[^>]*>1 tool</);
    expect(html).toContain('aria-label="Subagent researcher: running"');
  });

  it("once done, says its answer's first line, and returns nothing twice", () => {
    const panel = finishedProcess("r1", ANSWER);
    const html = renderToString(<SubagentExecution panel={panel} call={spawnCall(panel, cast(panel))} />);
    expect(html).toMatch(/data-testid="subagent-outcome"[^>]*>Found</);
    expect(html).toContain('aria-label="Succeeded"');
  });

  it("killed reads as a neutral Stopped, never Failed", () => {
    const panel = finishedProcess("r1", "", { status: "error", endReason: "killed", error: "Killed before it finished." });
    const html = renderToString(<SubagentExecution panel={panel} />);
    expect(html).toContain('aria-label="Stopped"');
    expect(html).toContain('aria-label="Subagent researcher: stopped"');
    expect(html).toContain('data-outcome="stopped"');
    expect(html).toMatch(/data-testid="outcome-badge"[^>]*>stopped</);
    expect(html).not.toMatch(/Failed|border-red|text-red/);
  });

  it("a watchdog timeout stays a failure of its own: Timed out", () => {
    const panel = finishedProcess("r1", "", {
      status: "error",
      endReason: "watchdog_timeout",
      error: "Stopped by the watchdog after 300000 ms.",
    });
    const html = renderToString(<SubagentExecution panel={panel} />);
    expect(html).toContain('aria-label="Timed out"');
    expect(html).toMatch(/data-testid="outcome-badge"[^>]*>timed out</);
  });

  it("a run its budget stopped reads Out of budget in amber, with the figure, never Failed", () => {
    const panel = finishedProcess("r1", "", {
      status: "error",
      endReason: "budget_exceeded",
      error: "Ran out of its budget: 2,310 of 2,000 tokens.",
      budget: { tokens: 2_000 },
      stats: { ...emptyStats(), chat: { inputTokens: 2_100, outputTokens: 210 } },
    });
    const html = renderToString(<SubagentExecution panel={panel} />);
    expect(html).toContain('aria-label="Out of budget"');
    expect(html).toContain('data-outcome="out_of_budget"');
    expect(html).toMatch(/data-testid="outcome-badge"[^>]*>out of budget</);
    expect(html).toMatch(/data-testid="subagent-outcome"[^>]*>Ran out of its budget: 2,310 of 2,000 tokens\.</);
    expect(html).toMatch(/data-testid="subagent-budget"[^>]*>2,310 \/ 2,000 tokens</);
    expect(html).not.toMatch(/Failed|border-red|text-red/);
  });

  it("a running run with a budget shows its spend against it", () => {
    const panel = finishedProcess("r1", "", {
      status: "running",
      endReason: undefined,
      endedAt: undefined,
      budget: { tokens: 5_000 },
      stats: { ...emptyStats(), chat: { inputTokens: 1_000, outputTokens: 240 } },
    });
    expect(renderToString(<SubagentExecution panel={panel} />)).toMatch(/data-testid="subagent-budget"[^>]*>1,240 \/ 5,000 tokens</);
  });

  it("a failure is still red and says Failed", () => {
    const panel = finishedProcess("r1", "", { status: "error", endReason: "failed", error: "Model request failed" });
    const html = renderToString(<SubagentExecution panel={panel} />);
    expect(html).toContain('aria-label="Failed"');
    expect(html).toContain("border-red-200");
  });

  it("a call cut short by a stop is neutral (Cancelled); a call that failed on its own stays Failed", () => {
    const cut = {
      ...grep,
      status: "cancelled" as const,
      response: 'Error [cancelled]: "grep" was stopped before it finished.',
      responseSize: 57,
    };
    const swept = { ...grep, status: "cancelled" as const };
    const broken = { ...grep, status: "error" as const, response: "Error [tool_failed]: no such file", responseSize: 33 };
    for (const call of [cut, swept]) {
      const html = renderToString(<ToolCallView call={call} ownerRunId="r1" />);
      expect(html).toContain('aria-label="Cancelled"');
      expect(html).toContain('data-status="cancelled"');
      expect(html).not.toContain("text-red");
    }
    expect(renderToString(<ToolCallView call={broken} ownerRunId="r1" />)).toContain('aria-label="Failed"');
  });

  it("reads the status, not the text: an error whose output mentions cancelling is still Failed", () => {
    const call = { ...grep, status: "error" as const, response: "Error [cancelled] was printed by the tool", responseSize: 41 };
    expect(renderToString(<ToolCallView call={call} ownerRunId="r1" />)).toContain('aria-label="Failed"');
  });
});
