/**
 * When a chat was last active, as the sidebar shows it: the time today, "Yesterday", the
 * weekday within a week, the day and month this year, and the full date before that. Two
 * chats with the same title are told apart by the time as well. Local time, like the clock
 * on the person's screen.
 */
export function sessionDate(iso: string, now: Date, withTime = false): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const time = at.toLocaleTimeString(LOCALE, { hour: "2-digit", minute: "2-digit", hour12: false });
  const days = dayNumber(now) - dayNumber(at);
  let day: string;
  if (days <= 0) return time;
  if (days === 1) day = "Yesterday";
  else if (days < 7) day = at.toLocaleDateString(LOCALE, { weekday: "short" });
  else if (at.getFullYear() === now.getFullYear()) day = at.toLocaleDateString(LOCALE, { day: "numeric", month: "short" });
  else day = at.toLocaleDateString(LOCALE, { day: "numeric", month: "short", year: "numeric" });
  return withTime ? `${day} ${time}` : day;
}

/** The full local date and time, for a tooltip. */
export function sessionDateTitle(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "" : at.toLocaleString(LOCALE, { dateStyle: "medium", timeStyle: "short", hour12: false });
}

/** English labels, whatever the browser's language: the rest of the interface is English. */
const LOCALE = "en-GB";

function dayNumber(d: Date): number {
  return Math.floor(new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() / 86_400_000);
}

export type DateGroup = "Today" | "Yesterday" | "Previous 7 days" | "Older";

/**
 * The sidebar's sections: chats grouped by the day they were last active (local time), in
 * the order given (newest first), empty groups left out.
 */
export function groupByDay<T extends { updatedAt: string }>(sessions: readonly T[], now: Date): { label: DateGroup; sessions: T[] }[] {
  const groups = new Map<DateGroup, T[]>();
  for (const session of sessions) {
    const at = new Date(session.updatedAt);
    const days = Number.isNaN(at.getTime()) ? Infinity : dayNumber(now) - dayNumber(at);
    const label: DateGroup = days <= 0 ? "Today" : days === 1 ? "Yesterday" : days < 7 ? "Previous 7 days" : "Older";
    const list = groups.get(label) ?? [];
    list.push(session);
    groups.set(label, list);
  }
  return (["Today", "Yesterday", "Previous 7 days", "Older"] as const)
    .filter((l) => groups.has(l))
    .map((label) => ({ label, sessions: groups.get(label)! }));
}
