import { ZERO_USAGE, type TurnStats, type Usage } from "@/lib/contracts";

/**
 * Usage of one run. Chat usage (the answering model) and system usage (condensation,
 * compaction) stay apart; every addition also flows up to the parent's meter, so a run's
 * totals include its descendants and the master's meter holds the whole turn. Steps are
 * the run's own model requests only.
 */
/** USD per million tokens, as providers publish prices. */
export interface Pricing {
  inputPerMTok: number;
  outputPerMTok: number;
}

export class UsageMeter {
  readonly chat: Usage = { ...ZERO_USAGE };
  readonly system: Usage = { ...ZERO_USAGE };
  steps = 0;
  /** Children inherit the root's prices; without any, cost stays 0 (unknown, not free). */
  readonly pricing: Pricing | undefined;

  constructor(
    private readonly parent?: UsageMeter,
    pricing?: Pricing,
  ) {
    this.pricing = pricing ?? parent?.pricing;
  }

  addChat(usage: Usage): void {
    add(this.chat, usage);
    this.parent?.addChat(usage);
  }

  addSystem(usage: Usage): void {
    add(this.system, usage);
    this.parent?.addSystem(usage);
  }

  stats(runtimeMs: number): TurnStats {
    return { chat: { ...this.chat }, system: { ...this.system }, steps: this.steps, runtimeMs: Math.max(0, runtimeMs), cost: this.cost() };
  }

  /** One price for chat and system tokens: the system model defaults to the chat model. */
  private cost(): number {
    if (!this.pricing) return 0;
    const input = this.chat.inputTokens + this.system.inputTokens;
    const output = this.chat.outputTokens + this.system.outputTokens;
    return (input * this.pricing.inputPerMTok + output * this.pricing.outputPerMTok) / 1_000_000;
  }
}

function add(target: Usage, usage: Usage): void {
  target.inputTokens += Math.max(0, Math.round(usage.inputTokens));
  target.outputTokens += Math.max(0, Math.round(usage.outputTokens));
}
