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

  it("prices usage when prices are configured, a child on the same model at the same prices", () => {
    const prices = { inputPerMTok: 0.15, outputPerMTok: 0.6 };
    const root = new UsageMeter(undefined, prices);
    const child = new UsageMeter(root, prices);
    child.addChat({ inputTokens: 1_000_000, outputTokens: 100_000 });
    child.addSystem({ inputTokens: 200_000, outputTokens: 0 });
    expect(child.stats(0).cost).toBeCloseTo(1.2 * 0.15 + 0.1 * 0.6, 10);
    expect(root.stats(0).cost).toBeCloseTo(child.stats(0).cost, 10);
  });

  it("prices each run's chat tokens at its own model's prices and system tokens at the system model's; totals add costs, not re-priced tokens", () => {
    const root = new UsageMeter(undefined, { inputPerMTok: 1, outputPerMTok: 2 });
    const pricey = new UsageMeter(root, { inputPerMTok: 10, outputPerMTok: 30 });
    const grandchild = new UsageMeter(pricey, { inputPerMTok: 1, outputPerMTok: 2 });
    const unpriced = new UsageMeter(root);
    root.addChat({ inputTokens: 1_000_000, outputTokens: 0 }); // $1
    pricey.addChat({ inputTokens: 1_000_000, outputTokens: 1_000_000 }); // $40
    pricey.addSystem({ inputTokens: 1_000_000, outputTokens: 0 }); // compaction on the system model: $1
    grandchild.addChat({ inputTokens: 0, outputTokens: 1_000_000 }); // back on the master's model: $2
    unpriced.addChat({ inputTokens: 5_000_000, outputTokens: 5_000_000 }); // no prices known: $0
    expect(grandchild.stats(0).cost).toBeCloseTo(2, 10);
    expect(pricey.stats(0).cost).toBeCloseTo(40 + 1 + 2, 10);
    expect(unpriced.stats(0).cost).toBe(0);
    expect(root.stats(0).cost).toBeCloseTo(1 + 43, 10);
    // Tokens still add up as before.
    expect(root.stats(0).chat).toEqual({ inputTokens: 7_000_000, outputTokens: 7_000_000 });
    expect(root.stats(0).system).toEqual({ inputTokens: 1_000_000, outputTokens: 0 });
  });

  it("leaves cost at 0 without prices", () => {
    const meter = new UsageMeter();
    meter.addChat({ inputTokens: 5_000, outputTokens: 5_000 });
    expect(meter.stats(0).cost).toBe(0);
  });
});

describe("UsageMeter.onAdd", () => {
  it("tells a meter's listeners of every addition below it, its own listeners before its parent's", () => {
    const root = new UsageMeter();
    const child = new UsageMeter(root);
    const heard: string[] = [];
    root.onAdd(() => heard.push(`root ${root.stats(0).chat.outputTokens}`));
    child.onAdd(() => heard.push(`child ${child.stats(0).chat.outputTokens}`));
    child.addChat({ inputTokens: 0, outputTokens: 5 });
    root.addSystem({ inputTokens: 1, outputTokens: 0 });
    expect(heard).toEqual(["child 5", "root 5", "root 5"]);
  });
});
