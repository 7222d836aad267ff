import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { SubagentProcess } from "@/lib/contracts";
import { PanelStats } from "./panel-stats";
import { SubagentExecution } from "./subagent-execution";

const panel = (model?: string): SubagentProcess => ({
  runId: "r1",
  parentRunId: null,
  depth: 1,
  name: "reviewer",
  task: "Review the plan",
  prompt: "p",
  steps: [],
  response: "Fine.",
  stats: {
    chat: { inputTokens: 10_000, outputTokens: 5_000 },
    system: { inputTokens: 0, outputTokens: 0 },
    steps: 1,
    runtimeMs: 1_200,
    cost: 0.6,
  },
  status: "success",
  endReason: "completed",
  startedAt: "2026-12-01T10:00:00.000Z",
  endedAt: "2026-12-01T10:00:01.200Z",
  ...(model === undefined ? {} : { model }),
});

describe("the model a subagent ran on", () => {
  it("shows in the panel's header, as text with the full label in its title", () => {
    const html = renderToString(<SubagentExecution panel={panel("Reviewer (large)")} />);
    expect(html).toContain('data-testid="subagent-model"');
    expect(html).toContain('title="Model: Reviewer (large)"');
    expect(html).toMatch(/>Reviewer \(large\)<\/span>/);
  });

  it("shows beside the run's cost in its stats, which the run's own model priced", () => {
    const html = renderToString(
      <PanelStats stats={panel().stats} startedAt="2026-12-01T10:00:00.000Z" running={false} model="gpt-4o via api.openai.com" />,
    );
    expect(html).toMatch(/<dt>Cost<\/dt><dd[^>]*>\$0\.60<\/dd>/);
    expect(html).toMatch(/<dt>Model<\/dt><dd[^>]*>gpt-4o via api.openai.com<\/dd>/);
  });

  it("renders a hostile label as text, and a run stored before labels were kept without one", () => {
    const hostile = renderToString(<SubagentExecution panel={panel('<img src=x onerror="alert(1)">')} />);
    expect(hostile).not.toContain("<img");
    expect(hostile).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    const old = renderToString(<SubagentExecution panel={panel()} />);
    expect(old).not.toContain("subagent-model");
    expect(renderToString(<PanelStats stats={panel().stats} startedAt="x" running={false} />)).not.toContain("Model");
  });
});

describe("the definition a subagent ran", () => {
  it("shows its version beside the name, linking to that version on the agents page", () => {
    const html = renderToString(<SubagentExecution panel={{ ...panel("Reviewer (large)"), definition: { id: "abc_1", version: 2 } }} />);
    const link = /<a [^>]*data-testid="subagent-definition-version"[^>]*>(.*?)<\/a>/.exec(html);
    expect(link?.[0]).toContain('href="/agents?id=abc_1&amp;v=2"');
    expect(link?.[1]).toBe("v<!-- -->2");
    expect(html).toContain(">reviewer</span>");
  });

  it("shows no version for an operator's definition (it has none)", () => {
    expect(renderToString(<SubagentExecution panel={panel()} />)).not.toContain("subagent-definition-version");
  });
});
