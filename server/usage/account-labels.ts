import type { Models } from "@/models";

/** Bounded like the admin's account list: an instance with more accounts is not this design's target. */
const LIST_MAX = 1000;

/** Each account's name for an admin's per-person usage: its display name with its email (which tells two of a name apart). */
export async function accountLabels(models: Pick<Models, "Account">): Promise<Map<string, string>> {
  const accounts = await models.Account.find({}, { _id: 1, email: 1, displayName: 1 })
    .limit(LIST_MAX)
    .lean<{ _id: string; email: string; displayName?: string }[]>();
  return new Map(accounts.map((a) => [a._id, a.displayName ? `${a.displayName} (${a.email})` : a.email]));
}
