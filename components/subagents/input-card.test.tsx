import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { InputRequest, ToolCall } from "@/lib/contracts";
import { InputCard, InputOutcome } from "./input-card";
import { PanelActionsProvider, type PanelActions } from "./panel-actions";

/** What the question card shows a person, as rendered: the message, one labelled control per field, and the buttons only to the owner. */

const input: InputRequest = {
  state: "pending",
  requestedAt: "2026-01-01T00:00:00.000Z",
  message: "Which size should the shirt be?",
  form: {
    type: "object",
    properties: {
      size: { type: "string", title: "Size", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
      gift: { type: "boolean", title: "Gift wrap" },
      note: { type: "string", title: "Note", description: "For the courier" },
    },
    required: ["size"],
  },
};
const call: ToolCall = {
  callId: "c1",
  name: "shop.order",
  parameters: "{}",
  response: "",
  responseSize: 0,
  status: "running",
  inputs: [input],
};
const owner: PanelActions = {
  sessionId: "s1",
  steer: async () => ({ ok: true, data: { runId: "r" } }),
  kill: async () => ({ ok: true, data: { runId: "r" } }),
  answer: async () => ({ ok: true, data: { callId: "c1" } }),
};

const render = (actions: PanelActions | null) =>
  renderToString(
    actions ? (
      <PanelActionsProvider value={actions}>
        <InputCard call={call} input={input} ownerRunId={null} agent="shopper" />
      </PanelActionsProvider>
    ) : (
      <InputCard call={call} input={input} ownerRunId={null} agent="shopper" />
    ),
  );

describe("the question card", () => {
  it("shows who asks, the message, a select for a choice, a checkbox for yes/no, labels and the required mark", () => {
    const html = render(owner);
    expect(html).toContain("shopper");
    expect(html).toContain("Which size should the shirt be?");
    expect(html).toMatch(/<select[^>]*data-field="size"[^>]*required=""/);
    expect(html).toContain('<option value="m">Medium</option>');
    expect(html).toMatch(/<input[^>]*type="checkbox"[^>]*data-field="gift"/);
    expect(html).toMatch(/<input[^>]*data-field="note"[^>]*type="text"/);
    expect(html).toContain("For the courier");
    expect(html.match(/<label/g)).toHaveLength(3);
    expect(html).toContain('title="required"');
    expect(html).toContain('data-testid="input-submit"');
    expect(html).toContain('data-testid="input-decline"');
  });

  it("offers no buttons where nobody may answer (a shared chat's viewer)", () => {
    const html = render({ ...owner, answer: undefined, readOnly: true });
    expect(html).not.toContain("input-submit");
    expect(html).toContain("disabled");
  });

  it("says how a question ended: the answer's fields by their labels, or declined", () => {
    const answered = renderToString(
      <InputOutcome input={{ ...input, state: "accepted", answeredBy: "id-1", content: { size: "m", gift: true } }} />,
    );
    expect(answered).toContain("Answered by identity id-1");
    expect(answered).toContain("Size: Medium, Gift wrap: yes");
    expect(renderToString(<InputOutcome input={{ ...input, state: "declined" }} />)).toContain("Declined");
  });
});
