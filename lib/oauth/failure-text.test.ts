import { z } from "zod";
import { describe, expect, it } from "vitest";
import { signInFailureText } from "./failure-text";

describe("a sign-in's failure as a person reads it", () => {
  it("names the fields a server got wrong, not the JSON of the validator's issues", () => {
    const parsed = z
      .object({ authorization_endpoint: z.string().url(), token_endpoint: z.string() })
      .safeParse({ authorization_endpoint: 1 });
    const text = signInFailureText(parsed.error);
    expect(text).toMatch(/^a server answered what OAuth does not allow \(authorization_endpoint: .+; token_endpoint: .+\)$/);
    expect(text).not.toContain("{");
  });

  it("says an answer was not JSON without quoting it", () => {
    let failure: unknown;
    try {
      JSON.parse("<script>alert(1)</script>");
    } catch (error) {
      failure = error;
    }
    expect(signInFailureText(failure)).toBe("a server's answer was not JSON");
  });

  it("keeps other errors' words, cut to a length a menu can show", () => {
    expect(signInFailureText(new Error("127.0.0.1:9 did not answer within 15 s"))).toBe("127.0.0.1:9 did not answer within 15 s");
    expect(signInFailureText(new Error("x".repeat(5000))).length).toBe(500);
    expect(signInFailureText("plain")).toBe("plain");
  });
});
