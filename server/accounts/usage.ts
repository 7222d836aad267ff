import type { AccountUsage } from "@/lib/contracts";

/**
 * An account's usage for the admin, summed from what is stored: its chats and their
 * turns' stats (the same figures the chat shows). Pure, so the sums are tested alone.
 */
export interface ChatUsageRow {
  _id: string;
  ownerId: string;
  updatedAt?: Date;
}

export interface TurnUsageRow {
  sessionId: string;
  createdAt?: Date;
  stats?: {
    chat?: { inputTokens?: number; outputTokens?: number };
    system?: { inputTokens?: number; outputTokens?: number };
    cost?: number;
  };
}

const later = (a: string | null, b: Date | null | undefined) => (b && (!a || b.toISOString() > a) ? b.toISOString() : a);

/** Usage per account id; `lastSeen` is when each account last used a sign-in session. */
export function sumUsage(
  accountIds: readonly string[],
  chats: readonly ChatUsageRow[],
  turns: readonly TurnUsageRow[],
  lastSeen: ReadonlyMap<string, Date | null> = new Map(),
): Map<string, AccountUsage> {
  const usage = new Map<string, AccountUsage>(
    accountIds.map((id) => [id, { chats: 0, turns: 0, tokens: 0, costUsd: 0, lastActiveAt: later(null, lastSeen.get(id)) }]),
  );
  const ownerOf = new Map<string, string>();
  for (const chat of chats) {
    const u = usage.get(chat.ownerId);
    if (!u) continue;
    ownerOf.set(chat._id, chat.ownerId);
    u.chats++;
    u.lastActiveAt = later(u.lastActiveAt, chat.updatedAt);
  }
  for (const turn of turns) {
    const u = usage.get(ownerOf.get(turn.sessionId) ?? "");
    if (!u) continue;
    const s = turn.stats;
    u.turns++;
    u.tokens += (s?.chat?.inputTokens ?? 0) + (s?.chat?.outputTokens ?? 0) + (s?.system?.inputTokens ?? 0) + (s?.system?.outputTokens ?? 0);
    u.costUsd += s?.cost ?? 0;
    u.lastActiveAt = later(u.lastActiveAt, turn.createdAt);
  }
  // Float sums of many small costs drift in the last digits; a micro-dollar is plenty.
  for (const u of usage.values()) u.costUsd = Math.round(u.costUsd * 1e6) / 1e6;
  return usage;
}
