import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fileEditTool } from "@/lib/tools/file-edit";
import { readNoteTool } from "@/test/support/agent/harness";
import { approvalReason, matchesToolName, MAX_APPROVAL_REASON_CHARS, needsApproval } from "./approval-policy";
import { Watchdog } from "./watchdog";

describe("which calls need approval", () => {
  it.each([
    ["grep", "grep", true],
    ["grep", "grep2", false],
    ["files.*", "files.read_file", true],
    ["files.*", "filesXread", false],
    ["*", "anything", true],
    ["read_*", "read_note", true],
    ["(a+)+", "aaaa", false],
  ] as const)("pattern %s against %s → %s", (pattern, name, expected) => {
    expect(matchesToolName([pattern], name)).toBe(expected);
  });

  it("a tool that asks for it always needs it; others only when the definition lists them", () => {
    expect(needsApproval(fileEditTool)).toBe(true);
    expect(needsApproval(readNoteTool)).toBe(false);
    expect(needsApproval(readNoteTool, ["read_*"])).toBe(true);
  });

  it("clips the agent's reason", () => {
    expect(approvalReason("  why  ")).toBe("why");
    expect(approvalReason("x".repeat(5_000))).toHaveLength(MAX_APPROVAL_REASON_CHARS);
  });
});

describe("Watchdog", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("does not count held time, and resumes only when every hold is released", () => {
    let now = 0;
    const fired: number[] = [];
    const dog = new Watchdog(
      100,
      () => fired.push(now),
      () => now,
    );
    const tick = (ms: number) => {
      now += ms;
      vi.advanceTimersByTime(ms);
    };
    tick(60);
    const a = dog.hold();
    const b = dog.hold();
    tick(1_000);
    a();
    a();
    tick(1_000);
    expect(fired).toEqual([]);
    b();
    tick(39);
    expect(fired).toEqual([]);
    tick(1);
    expect(fired).toEqual([2_100]);
  });
});

describe("tool name patterns", () => {
  it("answer at once for a pattern of many stars against a long name that does not match", async () => {
    const { wildcardMatch } = await import("./tool-patterns");
    const started = performance.now();
    expect(wildcardMatch("a*a*a*a*a*a*a*a*b", "a".repeat(5_000))).toBe(false);
    expect(wildcardMatch("files.*.read_*", "files.docs.read_file")).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
