import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { emptyStats, type ChatTurn, type Step, type ToolCall } from "@/lib/contracts";
import { finishedProcess } from "@/test/support/turn/event-builders";
import { AssistantMessage } from "@/components/chat/assistant-message";
import { TurnIdProvider } from "@/components/subagents/panel-actions";
import { ToolCallView } from "@/components/subagents/subagent-execution";
import { MasterSteps, RunSteps } from "./step-list";
import { WINDOW_FROM } from "./windowed-list";

const REASONING = "The user wants the <b>tide</b> table; grep first, then read.";
const step = (text: string, thinking = "", toolCalls: ToolCall[] = []): Step => ({ text, thinking, toolCalls });
const grep = (callId: string): ToolCall => ({
  callId,
  name: "grep",
  parameters: '{"pattern":"tide"}',
  response: "3 matches",
  responseSize: 9,
  status: "success",
});

const turnOf = (steps: Step[]): ChatTurn => ({
  turnId: "t1",
  sessionId: "s1",
  prompt: "Where is the tide table?",
  steps,
  stats: emptyStats(),
  status: "completed",
  createdAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:09.000Z",
});

/** The folded "Thinking" section of a render: its disclosure button and its (empty while folded) body. */
function thinkingOf(html: string): { button: string; body: string } | null {
  const match =
    /<div><button type="button" aria-expanded="(true|false)"[^>]*>.*?Thinking<\/button><div[^>]*data-testid="step-thinking"[^>]*>(.*?)<\/div><\/div>/.exec(
      html,
    );
  return match ? { button: match[1]!, body: match[2]! } : null;
}

describe("one step view for the master and every subagent", () => {
  it("folds the master's thinking under a Thinking disclosure, the same way as a subagent's", () => {
    const master = renderToString(<AssistantMessage turn={turnOf([step("Found it in `tides.py`.", REASONING, [grep("call_0")])])} />);
    const panel = finishedProcess("r1", "Found it.", { steps: [step("Found it.", REASONING, [grep("call_0")])] });
    const run = renderToString(
      <TurnIdProvider turnId="t1">
        <RunSteps panel={panel} answered={false} CallView={ToolCallView} />
      </TurnIdProvider>,
    );

    for (const html of [master, run]) {
      const thinking = thinkingOf(html);
      expect(thinking, "a Thinking disclosure").not.toBeNull();
      // Folded by default: the button says so and the reasoning is not in the page.
      expect(thinking!.button).toBe("false");
      expect(thinking!.body).toBe("");
      expect(html).not.toContain("tide</b>");
      expect(html).not.toContain("grep first");
      // Then the words, then the call, in the step's order.
      expect(html.indexOf("Thinking")).toBeLessThan(html.indexOf("Found it"));
      expect(html.indexOf("Found it")).toBeLessThan(html.indexOf('data-testid="tool-call"'));
    }
    // The master's words are the answer itself, a direct part of the message; a subagent's are framed in its numbered step.
    expect(master).toMatch(
      /data-testid="message-assistant"[^>]*>(<div><button[^>]*>.*?Thinking<\/button>.*?<\/div><\/div>)<div class="markdown/,
    );
    expect(run).toMatch(/data-testid="subagent-step"[^>]*><div[^>]*>Step (<!-- -->)?1<\/div><div><button/);
    expect(run).toContain('data-testid="subagent-step-text"');
  });

  it("shows no Thinking section for a step without reasoning (the master's until its runtime records it)", () => {
    const html = renderToString(<AssistantMessage turn={turnOf([step("Plain answer.")])} />);
    expect(thinkingOf(html)).toBeNull();
    expect(html).toContain("Plain answer.");
  });

  it("renders a long list of steps or calls as a window, not whole", () => {
    const steps = Array.from({ length: 500 }, (_, i) => step(`Step text ${i}.`, "", [grep(`call_${i}`)]));
    const panel = finishedProcess("r1", "", { steps, status: "running", endReason: undefined, endedAt: undefined });
    const run = renderToString(
      <TurnIdProvider turnId="t1">
        <RunSteps panel={panel} answered={false} CallView={ToolCallView} />
      </TurnIdProvider>,
    );
    const rendered = run.match(/data-testid="subagent-step"/g)?.length ?? 0;
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(WINDOW_FROM);
    expect(run).toContain('data-windowed="500"');
    expect(run).toContain("Step text 0.");
    expect(run).not.toContain("Step text 499.");
    // The items out of view are stood in for by padding, so the scroll height is about right.
    expect(Number(/padding-bottom:(\d+)px/.exec(run)?.[1])).toBeGreaterThan(400 * 100);

    const calls = renderToString(
      <TurnIdProvider turnId="t1">
        <MasterSteps
          steps={[
            step(
              "",
              "",
              Array.from({ length: 300 }, (_, i) => grep(`call_${i}`)),
            ),
          ]}
          live={false}
          CallView={ToolCallView}
        />
      </TurnIdProvider>,
    );
    const chips = calls.match(/data-testid="tool-call"/g)?.length ?? 0;
    expect(chips).toBeGreaterThan(0);
    expect(chips).toBeLessThan(WINDOW_FROM);

    // Short lists are whole: every step, no window.
    const short = renderToString(<MasterSteps steps={steps.slice(0, WINDOW_FROM - 1)} live={false} CallView={ToolCallView} />);
    expect(short.match(/data-testid="tool-call"/g)?.length).toBe(WINDOW_FROM - 1);
    expect(short).not.toContain("data-windowed");
  });
});
