import { describe, expect, it } from "vitest";
import { repeatsRepeatingGroup } from "./grep";

describe("repeatsRepeatingGroup", () => {
  it.each(["(a+)+$", "(\\w*)*x", "(x+){2,}", "((a+))+$", "((a)+)*b", "(?:(?:a*)b)+", "(a(b(c+)))*", "((a+)b)+?"])(
    "refuses %j",
    (pattern) => {
      expect(repeatsRepeatingGroup(pattern)).toBe(true);
    },
  );

  it.each(["(ab)+", "(a|b)*c", "a+b*", "[(a+)]+", "\\(a+\\)+", "(a+)(b+)", "((a)(b))+", "(a+)\\+", "(TODO|FIXME):\\s*\\w+", "[)+]*(x)+"])(
    "accepts %j",
    (pattern) => {
      expect(repeatsRepeatingGroup(pattern)).toBe(false);
    },
  );
});
