"use client";

import { useCallback, useEffect, useState } from "react";
import type { ChatTurn } from "@/lib/contracts";
import type { OlderTurns } from "./use-session";

export interface SeekWindow {
  turns: readonly ChatTurn[];
  /** How many of `turns`, from the start, are held back above what is rendered. */
  hidden: number;
  older?: OlderTurns;
  /** Renders the turns from `index` on. */
  reveal: (index: number) => void;
}

/**
 * A walk to something not in view yet: loads older pages until a turn `holds` the target,
 * reveals the turns down to it, then calls `arrive` once it is rendered. It ends there,
 * or when no older page is left (or one failed to load: its error shows at the top).
 * Returns the function that starts a walk.
 */
export function useSeek<T>(
  holds: (turn: ChatTurn, target: T) => boolean,
  arrive: (target: T) => void,
  { turns, hidden, older, reveal }: SeekWindow,
): (target: T) => void {
  const [target, setTarget] = useState<{ value: T } | null>(null);
  useEffect(() => {
    if (target === null) return;
    const index = turns.findIndex((turn) => holds(turn, target.value));
    if (index >= 0 && index < hidden) return reveal(index);
    if (index >= 0) {
      // Rendered with this commit; reached once laid out.
      requestAnimationFrame(() => arrive(target.value));
      setTarget(null);
      return;
    }
    if (older?.hasMore && !older.error) {
      if (!older.loading) older.load();
      return;
    }
    setTarget(null);
    // `holds`, `arrive` and `reveal` are read when the window moves, not followed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [target, turns, hidden, older]);
  return useCallback((value: T) => setTarget({ value }), []);
}
