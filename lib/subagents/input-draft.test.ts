import { describe, expect, it } from "vitest";
import type { InputForm, InputRequest } from "@/lib/contracts";
import { answerOfDraft, answerSummary, draftFields, initialDraft, inputOutcome } from "./input-draft";

/** A question's form as the card draws it, and what the card sends for what a person entered. */

const form: InputForm = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", description: "As on your card", default: "Ada" },
    email: { type: "string", format: "email" },
    size: { type: "string", title: "Size", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
    count: { type: "integer", title: "How many", minimum: 1, maximum: 5, default: 1 },
    gift: { type: "boolean", title: "Gift wrap" },
  },
  required: ["name", "size"],
};

describe("the card's fields", () => {
  it("draws each field as one control, in the form's order, with its label and required mark", () => {
    expect(draftFields(form)).toEqual([
      { name: "name", label: "Your name", description: "As on your card", required: true, kind: "text" },
      { name: "email", label: "email", required: false, kind: "email" },
      {
        name: "size",
        label: "Size",
        required: true,
        kind: "select",
        options: [
          { value: "s", label: "Small" },
          { value: "m", label: "Medium" },
        ],
      },
      { name: "count", label: "How many", required: false, kind: "number", step: "1", min: 1, max: 5 },
      { name: "gift", label: "Gift wrap", required: false, kind: "checkbox" },
    ]);
    expect(initialDraft(form)).toEqual({ name: "Ada", email: "", size: "", count: "1", gift: false });
  });
});

describe("the draft as an answer", () => {
  it("reads numbers and checkboxes back into the form's types and leaves empty optional fields out", () => {
    expect(answerOfDraft(form, { ...initialDraft(form), size: "m", count: "3", gift: true })).toEqual({
      ok: true,
      content: { name: "Ada", size: "m", count: 3, gift: true },
    });
  });

  it("says what is wrong before sending, as the server would", () => {
    expect(answerOfDraft(form, { ...initialDraft(form), count: "9", email: "nope" })).toEqual({
      ok: false,
      error: "The answer does not fit the form: email must be an email address; Size is required; How many must be at most 5.",
    });
    expect(answerOfDraft(form, { ...initialDraft(form), size: "s", count: "two" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("How many must be a number"),
    });
  });
});

describe("how a question ended", () => {
  const asked: InputRequest = { state: "pending", requestedAt: "2026-01-01T00:00:00.000Z", message: "Which?", form };
  it("names the answer's fields by their labels, and who answered", () => {
    const accepted: InputRequest = {
      ...asked,
      state: "accepted",
      answeredBy: "abcdefghijklmnop",
      content: { name: "Ada", size: "m", gift: false },
    };
    expect(answerSummary(accepted)).toBe("Your name: Ada, Size: Medium, Gift wrap: no");
    expect(inputOutcome(accepted)).toBe("Answered by identity abcdefghijkl: Your name: Ada, Size: Medium, Gift wrap: no");
    expect(inputOutcome(accepted, undefined, "Ana")).toBe("Answered by Ana: Your name: Ada, Size: Medium, Gift wrap: no");
    expect(inputOutcome({ ...asked, state: "declined" })).toBe("Declined");
    expect(inputOutcome({ ...asked, state: "cancelled", note: "The run stopped before anyone answered." })).toBe(
      "Ended unanswered: The run stopped before anyone answered.",
    );
  });
});
