"use client";

import { useCallback, useRef, useState } from "react";
import type { Ack } from "@/lib/contracts";

export interface RunOptions<T> {
  /** Says what failed: "Could not <verb>: <the server's message>". */
  verb: string;
  /** A refusal that is an answer, not an error (the strip says it another way). */
  quiet?: (message: string) => boolean;
  /** Runs with the answer in the same update as the end of `pending`, so no frame shows neither. */
  onOk?: (data: T) => void;
}

export interface Action {
  pending: boolean;
  error: string | null;
  /** Sends once (a second press while one is under way does nothing) and resolves with its answer, or null when it did not send. */
  run: <T>(send: () => Promise<Ack<T>>, options: RunOptions<T>) => Promise<Ack<T> | null>;
  clear: () => void;
}

/**
 * One command a person confirms in a panel (steer, kill, retry, approve or deny): pending
 * while it is under way, its refusal kept as the error to show, cleared on the next try.
 */
export function useAction(): Action {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const busy = useRef(false);
  const run = useCallback(async <T>(send: () => Promise<Ack<T>>, { verb, quiet, onOk }: RunOptions<T>) => {
    if (busy.current) return null;
    busy.current = true;
    setPending(true);
    setError(null);
    const ack = await send();
    busy.current = false;
    if (ack.ok) onOk?.(ack.data);
    else if (!quiet?.(ack.message)) setError(`Could not ${verb}: ${ack.message}`);
    setPending(false);
    return ack;
  }, []);
  const clear = useCallback(() => setError(null), []);
  return { pending, error, run, clear };
}
