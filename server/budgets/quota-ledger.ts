import { AppError } from "@/lib/contracts";
import type { SpendGate } from "@/lib/agent/budget-stop";
import type { Spend } from "@/lib/budgets/spend";
import {
  QUOTA_PERIODS,
  hasQuota,
  quotaOverrunOf,
  quotaRefusal,
  quotaText,
  quotaWindows,
  type Quota,
  type QuotaPeriod,
} from "@/lib/budgets/quota";
import type { Models } from "@/models";
import { expiringRows, type ExpiringRows } from "@/server/db/expiry-index";

/** A day's counter is kept 40 days, a month's 400, after its period starts (then its expiry drops it). */
const KEEP_DAYS: Record<QuotaPeriod, number> = { day: 40, month: 400 };

export type Used = Record<QuotaPeriod, Spend>;

/** A person's quota as it stands when their turn opens (the admin may set one per account). */
export type QuotaOf = (person: string) => Promise<Quota>;

type QuotaStop = NonNullable<ReturnType<SpendGate["add"]>>;

const nothingUsed = (): Used => ({ day: { tokens: 0, usd: 0 }, month: { tokens: 0, usd: 0 } });

/**
 * A person's quotas, counted in MongoDB so every process sees every other's spending: each
 * response a turn counts is added with one atomic `$inc` upsert per period, and the counts
 * it answers are what the next check reads. A turn is refused before it starts when its
 * person is at a quota, and a running turn stops at its next step once one is reached.
 * The quota is read as each turn opens, so a change the admin makes holds from the
 * person's next turn in every process.
 */
export class QuotaLedger {
  private readonly expiry: ExpiringRows;
  private readonly quotaOf: QuotaOf;
  /**
   * Whether turns are counted without a quota too: where each person's quota may change
   * (the admin's), so one set today meets today's spend and the admin sees it beforehand.
   */
  private readonly alwaysCount: boolean;

  constructor(
    private readonly model: Models["QuotaUsage"],
    /** The same quota for everyone, or how to read a person's own. */
    quota: Quota | QuotaOf,
    private readonly now: () => Date = () => new Date(),
    private readonly log?: { warn(message: string, fields?: Record<string, unknown>): void },
  ) {
    this.expiry = expiringRows(model.collection, "expiresAt", () => this.now().getTime());
    this.quotaOf = typeof quota === "function" ? quota : async () => quota;
    this.alwaysCount = typeof quota === "function";
  }

  /**
   * The gate a turn of `person` runs behind; undefined without quotas (unless every turn
   * is counted). Refuses with `limit_reached`, saying which quota and when it resets, when
   * one is already reached.
   */
  async open(person: string): Promise<SpendGate | undefined> {
    const quota = await this.quotaOf(person);
    if (!hasQuota(quota) && !this.alwaysCount) return undefined;
    // Where the server has no TTL indexes, the counters long past go as turns start.
    await this.expiry.sweep();
    const used = await this.used(person);
    const now = this.now();
    const over = quotaOverrunOf(used, quota, now);
    if (over) throw new AppError("limit_reached", quotaRefusal(over, now));
    return this.gate(person, quota, used);
  }

  /** What `person` has spent in the current UTC day and month. */
  async used(person: string): Promise<Used> {
    return (await this.usedBy([person])).get(person)!;
  }

  /** What each of `persons` has spent in the current UTC day and month, in one read. */
  async usedBy(persons: readonly string[]): Promise<Map<string, Used>> {
    const windows = quotaWindows(this.now());
    const ids = persons.flatMap((person) => QUOTA_PERIODS.map((p) => counterId(person, p, windows[p].key)));
    const rows = ids.length ? await this.model.find({ _id: { $in: ids } }).lean() : [];
    const used = new Map(persons.map((person) => [person, nothingUsed()]));
    for (const row of rows) {
      const of = used.get(row.person);
      if (of) of[row.period as QuotaPeriod] = { tokens: row.tokens ?? 0, usd: row.usd ?? 0 };
    }
    return used;
  }

  /**
   * Counts each addition in MongoDB (in order, one write at a time per turn) and answers
   * from the counts as the database last returned them plus what is still on its way.
   * `add` answers at once, from what this gate knows (its own turn's spending catches up
   * without a round trip); `counted` answers once every addition so far is written, from
   * the counts the last `$inc` returned, which hold every process's additions before it.
   * A run that begins its next step only on `counted`'s answer overshoots by at most the
   * step it was in: the first write that reaches the quota, and any after it, answer stop.
   */
  private gate(person: string, quota: Quota, start: Used): SpendGate {
    let known = start;
    let pending: Spend = { tokens: 0, usd: 0 };
    let writes = Promise.resolve();
    const answer = (): QuotaStop | undefined => {
      const now = this.now();
      const add = (s: Spend): Spend => ({ tokens: s.tokens + pending.tokens, usd: s.usd + pending.usd });
      const over = quotaOverrunOf({ day: add(known.day), month: add(known.month) }, quota, now);
      return over ? { whose: "quota", overrun: over.overrun, text: quotaText(over, now) } : undefined;
    };
    return {
      add: (delta) => {
        if (delta.tokens === 0 && delta.usd === 0) return undefined;
        pending = { tokens: pending.tokens + delta.tokens, usd: pending.usd + delta.usd };
        writes = writes.then(async () => {
          try {
            known = await this.charge(person, delta);
            pending = { tokens: pending.tokens - delta.tokens, usd: pending.usd - delta.usd };
          } catch (error) {
            // A lost count must not stop the turn; the next addition is counted again.
            this.log?.warn("could not count spending against a quota", { error: String(error) });
          }
        });
        return answer();
      },
      counted: () => writes.then(answer),
    };
  }

  /** One atomic `$inc` per period, creating the counter on its first addition; answers the counts after it. */
  private async charge(person: string, delta: Spend): Promise<Used> {
    const windows = quotaWindows(this.now());
    const used = nothingUsed();
    await Promise.all(
      QUOTA_PERIODS.map(async (period) => {
        const window = windows[period];
        const row = await this.model
          .findOneAndUpdate(
            { _id: counterId(person, period, window.key) },
            {
              $inc: { tokens: delta.tokens, usd: delta.usd },
              $setOnInsert: {
                person,
                period,
                startsAt: window.startsAt,
                expiresAt: new Date(window.startsAt.getTime() + KEEP_DAYS[period] * 86_400_000),
              },
            },
            { upsert: true, returnDocument: "after" },
          )
          .lean();
        if (row) used[period] = { tokens: row.tokens ?? 0, usd: row.usd ?? 0 };
      }),
    );
    return used;
  }
}

function counterId(person: string, period: QuotaPeriod, key: string): string {
  return `${person}|${period}|${key}`;
}
