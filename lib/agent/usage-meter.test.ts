import { describe, expect, it } from "vitest";
import { UsageMeter } from "./usage-meter";

describe("UsageMeter", () => {
  it("rolls a child's usage up into its parent, chat and system apart", () => {
    const root = new UsageMeter();
    const child = new UsageMeter(root);
    child.addChat({ inputTokens: 100, outputTokens: 20 });
    child.addSystem({ inputTokens: 50, outputTokens: 5 });
    root.addChat({ inputTokens: 10, outputTokens: 1 });
    expect(root.stats(0)).toMatchObject({ chat: { inputTokens: 110, outputTokens: 21 }, system: { inputTokens: 50, outputTokens: 5 } });
    expect(child.stats(0)).toMatchObject({ chat: { inputTokens: 100, outputTokens: 20 } });
  });

  it("prices usage when prices are configured, children included", () => {
    const root = new UsageMeter(undefined, { inputPerMTok: 0.15, outputPerMTok: 0.6 });
    const child = new UsageMeter(root);
    child.addChat({ inputTokens: 1_000_000, outputTokens: 100_000 });
    child.addSystem({ inputTokens: 200_000, outputTokens: 0 });
    expect(child.stats(0).cost).toBeCloseTo(1.2 * 0.15 + 0.1 * 0.6, 10);
    expect(root.stats(0).cost).toBeCloseTo(child.stats(0).cost, 10);
  });

  it("leaves cost at 0 without prices", () => {
    const meter = new UsageMeter();
    meter.addChat({ inputTokens: 5_000, outputTokens: 5_000 });
    expect(meter.stats(0).cost).toBe(0);
  });
});
