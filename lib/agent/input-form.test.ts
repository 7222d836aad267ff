import { describe, expect, it } from "vitest";
import type { InputForm } from "@/lib/contracts";
import { checkInputAnswer, parseInputForm } from "./input-form";

/** The forms a tool may ask and the answers that fit them: what a person can be shown, and what the server accepts back. */

const form: InputForm = {
  type: "object",
  properties: {
    name: { type: "string", title: "Your name", minLength: 2 },
    email: { type: "string", format: "email" },
    site: { type: "string", format: "uri" },
    day: { type: "string", format: "date" },
    size: { type: "string", enum: ["s", "m", "l"], enumNames: ["Small", "Medium", "Large"] },
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number" },
    agree: { type: "boolean", title: "I agree" },
  },
  required: ["name", "agree"],
};

describe("parseInputForm", () => {
  it("accepts a flat form of the supported fields (a $schema key is ignored)", () => {
    const result = parseInputForm("Who are you?", { $schema: "https://json-schema.org/draft/2020-12/schema", ...form });
    expect(result).toEqual({ ok: true, form, message: "Who are you?" });
  });

  const refused: [string, unknown, string][] = [
    ["a nested object", { type: "object", properties: { a: { type: "object", properties: {} } } }, "properties.a"],
    ["an array field", { type: "object", properties: { a: { type: "array", items: { type: "string" } } } }, "properties.a"],
    ["another format", { type: "object", properties: { a: { type: "string", format: "ipv4" } } }, "format"],
    ["an unknown keyword", { type: "object", properties: { a: { type: "string", pattern: "^x$" } } }, "pattern"],
    ["not an object form", { type: "string" }, "type"],
    ["a required field it lacks", { type: "object", properties: {}, required: ["ghost"] }, "ghost"],
    [
      "enum labels that do not match",
      { type: "object", properties: { a: { type: "string", enum: ["x"], enumNames: ["X", "Y"] } } },
      "enumNames",
    ],
    ["a minimum above its maximum", { type: "object", properties: { a: { type: "number", minimum: 5, maximum: 1 } } }, "minimum"],
    ["a field name with markup", { type: "object", properties: { "<b>": { type: "string" } } }, "letters"],
  ];
  it.each(refused)("refuses %s with a sentence naming the problem", (_what, raw, named) => {
    const result = parseInputForm("Question?", raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(named);
  });

  it("refuses an empty or huge message", () => {
    expect(parseInputForm("  ", form)).toMatchObject({ ok: false, error: expect.stringContaining("message") });
    expect(parseInputForm("x".repeat(5_000), form)).toMatchObject({ ok: false, error: expect.stringContaining("5000 characters") });
  });
});

describe("checkInputAnswer", () => {
  it("accepts an answer that fits, dropping empty optional text", () => {
    const fits = { name: "Ada", email: "ada@example.com", day: "2026-02-28", size: "m", count: 3, ratio: 0.5, agree: true };
    expect(checkInputAnswer(form, { ...fits, site: "https://example.com" })).toEqual({
      ok: true,
      content: { ...fits, site: "https://example.com" },
    });
    expect(checkInputAnswer(form, { ...fits, site: "" })).toEqual({ ok: true, content: fits });
  });

  const wrong: [string, Record<string, string | number | boolean>, string][] = [
    ["a missing required field", { name: "Ada" }, "I agree is required"],
    ["a wrong type", { name: "Ada", agree: "yes" }, "I agree must be true or false"],
    ["a field the form lacks", { name: "Ada", agree: true, admin: true }, '"admin" is not a field'],
    ["a value outside the enum", { name: "Ada", agree: true, size: "xl" }, 'size must be one of "s", "m", "l"'],
    ["a fraction for an integer", { name: "Ada", agree: true, count: 2.5 }, "count must be a whole number"],
    ["a number out of range", { name: "Ada", agree: true, count: 11 }, "count must be at most 10"],
    ["text for a number", { name: "Ada", agree: true, count: "3" }, "count must be a number"],
    ["a bad email", { name: "Ada", agree: true, email: "ada" }, "email must be an email address"],
    ["a bad URI", { name: "Ada", agree: true, site: "not a uri" }, "site must be an absolute URI"],
    ["an impossible date", { name: "Ada", agree: true, day: "2026-02-30" }, "day must be a date"],
    ["too short a text", { name: "A", agree: true }, "Your name must be at least 2 characters"],
  ];
  it.each(wrong)("refuses %s, naming the field", (_what, content, message) => {
    const result = checkInputAnswer(form, content);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  it("names every problem at once", () => {
    const result = checkInputAnswer(form, { count: 0 });
    expect(result).toEqual({
      ok: false,
      error: "The answer does not fit the form: Your name is required; count must be at least 1; I agree is required.",
    });
  });
});
