import { ZERO_USAGE, type TurnStats, type Usage } from "@/lib/contracts";

/**
 * Usage of one run. Chat usage (the answering model) and system usage (condensation,
 * compaction) stay apart; every addition also flows up to the parent's meter, so a run's
 * totals include its descendants and the master's meter holds the whole turn. Steps are
 * the run's own model requests only.
 *
 * Cost is priced where it is spent: each addition is priced with the prices of the model
 * that spent it (the run's own model for chat usage, the system model for system usage),
 * and the parent adds that cost, never re-pricing the tokens at its own prices. A
 * subagent on an expensive model therefore costs what its model costs, in its stats and
 * in every total above it.
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
  /** Prices of this run's own chat model; without any, its tokens cost 0 (unknown, not free). */
  readonly pricing: Pricing | undefined;
  /** Prices of the system model: the root's (MODEL_PRICE_*, which the system model shares), for every run. */
  readonly systemPricing: Pricing | undefined;
  private spent = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly parent?: UsageMeter,
    pricing?: Pricing,
  ) {
    this.pricing = pricing;
    this.systemPricing = parent ? parent.systemPricing : pricing;
  }

  addChat(usage: Usage): void {
    this.addPriced("chat", usage, priceOf(usage, this.pricing));
  }

  addSystem(usage: Usage): void {
    this.addPriced("system", usage, priceOf(usage, this.systemPricing));
  }

  /**
   * Called after each addition to this meter or to one below it (a model response counted
   * and priced): where a budget is checked, so a run's descendants spend against it too.
   */
  onAdd(listener: () => void): void {
    this.listeners.push(listener);
  }

  stats(runtimeMs: number): TurnStats {
    return { chat: { ...this.chat }, system: { ...this.system }, steps: this.steps, runtimeMs: Math.max(0, runtimeMs), cost: this.spent };
  }

  /** `cost` was priced by the run that spent it; the parents add it as is. */
  private addPriced(kind: "chat" | "system", usage: Usage, cost: number): void {
    add(this[kind], usage);
    this.spent += cost;
    // Own budget first: a run that crosses its own budget ends for that, not for its parent's.
    for (const listener of this.listeners) listener();
    this.parent?.addPriced(kind, usage, cost);
  }
}

function priceOf(usage: Usage, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  const input = Math.max(0, Math.round(usage.inputTokens));
  const output = Math.max(0, Math.round(usage.outputTokens));
  return (input * pricing.inputPerMTok + output * pricing.outputPerMTok) / 1_000_000;
}

function add(target: Usage, usage: Usage): void {
  target.inputTokens += Math.max(0, Math.round(usage.inputTokens));
  target.outputTokens += Math.max(0, Math.round(usage.outputTokens));
}
