import { AppError } from "@/lib/contracts";

/** What one person may hold at once; past these a command is refused with `limit_reached`. */
export interface PersonLimits {
  /** Chats kept (the sidebar pages through them; search and the list stay fast at 10,000). */
  chats: number;
  /** Turns running at once, across all of one's chats (and, scaled out, every process). */
  runningTurns: number;
  /** Open socket connections (tabs), on every process together. */
  sockets: number;
}

export const DEFAULT_PERSON_LIMITS: PersonLimits = { chats: 10_000, runningTurns: 3, sockets: 20 };

/** The refusal of a turn past the running-turn cap, whichever process counted it. */
export function tooManyTurns(limit: number): AppError {
  return new AppError("limit_reached", `You have ${limit} turns running in other chats; wait for one to finish or stop it.`);
}
