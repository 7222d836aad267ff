import { AppError, type UsageQuery, type UsageReport } from "@/lib/contracts";
import { usageRange } from "@/lib/usage/usage-range";
import { summarizeUsage } from "@/lib/usage/usage-summary";
import { readUsageRows, type UsageModels } from "./usage-reader";

export interface UsageServiceDeps {
  models: UsageModels;
  /** Whether this person may see everyone's usage (an admin in the account modes). */
  isAdmin(userId: string): Promise<boolean>;
  /** Names of the people an admin's report lists (account id → name or email); absent: ids. */
  personLabels?(): Promise<Map<string, string>>;
  now?: () => Date;
}

/**
 * The usage page's one question: what did these turns and runs spend. A person sees
 * their own; an admin sees everyone's (per person) or one person's. Anyone else's is
 * answered as an unknown route is, so a member learns nothing about who exists.
 */
export class UsageService {
  constructor(private readonly deps: UsageServiceDeps) {}

  async report(userId: string, query: UsageQuery): Promise<UsageReport> {
    const range = usageRange(query, this.deps.now?.() ?? new Date());
    if (!range) throw new AppError("bad_request", "A usage report covers 1 to 366 days: pick a shorter range.");
    const admin = await this.deps.isAdmin(userId);
    if (query.person && query.person !== userId && !admin) throw new AppError("not_found", "No such API route.");
    // An admin's report is everyone's unless it names someone.
    const person = query.person ?? (admin ? null : userId);
    const rows = await readUsageRows(this.deps.models, person, range.start, range.end);
    const personLabels = person === null ? ((await this.deps.personLabels?.()) ?? new Map<string, string>()) : undefined;
    return summarizeUsage({ ...rows, from: range.from, to: range.to, person, canSeeEveryone: admin, personLabels });
  }
}
