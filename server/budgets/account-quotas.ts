import { AppError, type QuotaSetting, type QuotaView } from "@/lib/contracts";
import { effectiveQuota, quotaView, storedSetting } from "@/lib/budgets/quota-setting";
import type { Quota } from "@/lib/budgets/quota";
import type { Models } from "@/models";
import { QuotaLedger } from "./quota-ledger";

/**
 * The quotas of the account modes: each account's own setting, kept on its document, over
 * the operator's default (QUOTA_*). Its ledger asks `quotaOf` as each turn opens, so a
 * setting written here holds in every process from the person's next turn.
 */
export class AccountQuotas {
  /** The counters, reading each person's quota from here. */
  readonly ledger: QuotaLedger;

  constructor(
    private readonly accounts: Models["Account"],
    usage: Models["QuotaUsage"],
    /** The operator's quota (QUOTA_*), for every account without its own. */
    readonly fallback: Quota,
    private readonly now: () => Date = () => new Date(),
    log?: { warn(message: string, fields?: Record<string, unknown>): void },
  ) {
    this.ledger = new QuotaLedger(usage, (person) => this.quotaOf(person), now, log);
  }

  /** A person's quota now: their account's own, else the default (a person without an account has the default). */
  async quotaOf(person: string): Promise<Quota> {
    const row = await this.accounts.findById(person, { quota: 1 }).lean<{ quota?: unknown }>();
    return effectiveQuota(storedSetting(row?.quota), this.fallback);
  }

  /** Sets an account's own quota; null clears it (the default again). */
  async set(accountId: string, setting: QuotaSetting | null): Promise<void> {
    const update = setting ? { $set: { quota: setting } } : { $unset: { quota: 1 } };
    const result = await this.accounts.updateOne({ _id: accountId }, update);
    if (result.matchedCount === 0) throw new AppError("not_found", "That account does not exist.");
  }

  /** Each account's quota and its spend this day and month, from its stored setting (`settings`, by id). */
  async views(settings: ReadonlyMap<string, unknown>): Promise<Map<string, QuotaView>> {
    const ids = [...settings.keys()];
    const used = await this.ledger.usedBy(ids);
    const now = this.now();
    return new Map(ids.map((id) => [id, quotaView(storedSetting(settings.get(id)), this.fallback, used.get(id)!, now)]));
  }

  /** One account's view, read fresh. */
  async viewOf(accountId: string): Promise<QuotaView> {
    const row = await this.accounts.findById(accountId, { quota: 1 }).lean<{ quota?: unknown }>();
    return (await this.views(new Map([[accountId, row?.quota]]))).get(accountId)!;
  }
}
