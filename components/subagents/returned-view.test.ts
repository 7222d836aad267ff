import { describe, expect, it } from "vitest";
import { emptyStats, type SubagentProcess } from "@/lib/contracts";
import { castNarrative } from "@/lib/agent/narrative";
import { returnedView } from "./returned-view";

const stats = { ...emptyStats(), steps: 2, runtimeMs: 1500 };
const cast = (body: string, extra: { level?: 1 | 2 | 3; endReason?: "completed" | "killed"; error?: string } = {}) =>
  castNarrative({
    label: "explore-1",
    endReason: extra.endReason ?? "completed",
    level: extra.level ?? 1,
    body,
    stats,
    originalTokens: 10,
    bodyTokens: 10,
    footer: true,
    ...(extra.error ? { error: extra.error } : {}),
  });
const call = (response: string, responseSize = response.length) => ({ response, responseSize });
const ok = (response: string): Pick<SubagentProcess, "status" | "response" | "error"> => ({ status: "success", response });
const killed: Pick<SubagentProcess, "status" | "response" | "error"> = {
  status: "error",
  response: "",
  error: "Killed before it finished.",
};

describe("returnedView", () => {
  const table: [string, ReturnType<typeof call>, Pick<SubagentProcess, "status" | "response" | "error">, string][] = [
    ["a passthrough of the answer shown above", call(cast("## Found\n\n**3 bugs**")), ok("## Found\n\n**3 bugs**\n"), "same"],
    ["a condensed answer", call(cast("Three bugs.", { level: 2 })), ok("## Found\n\nA long list of three bugs…"), "differs"],
    ["the error shown above", call(cast("", { endReason: "killed", error: "Killed before it finished." })), killed, "same"],
    ["a preview cut before the footer", call(cast("x".repeat(50)).slice(0, 120), 5000), ok("x".repeat(50)), "same"],
    ["an older record that is not a cast result", call("Raw **text**"), ok("Raw **text**"), "raw"],
  ];
  it.each(table)("%s", (_name, c, process, kind) => {
    expect(returnedView(c, process).kind).toBe(kind);
  });

  it("keeps the boilerplate as metadata, never in the body", () => {
    const view = returnedView(call(cast("Three bugs.", { level: 2 })), ok("long"));
    expect(view).toMatchObject({
      kind: "differs",
      body: "Three bugs.",
      meta: [
        "Completed",
        "condensed: LLM summary",
        "Runtime: 1.5s",
        "Steps: 2",
        "Tokens: 0",
        "Cost: $0.0000",
        "Original: 10 tokens",
        "Ratio: 1.00",
      ],
    });
    expect(returnedView(call(cast("same")), ok("same"))).toMatchObject({
      kind: "same",
      note: "Returned as shown above.",
      meta: expect.arrayContaining(["passed through whole"]),
    });
  });
});
