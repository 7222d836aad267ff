"use client";

import { useState, type FormEvent } from "react";
import type { ApiResult } from "./account-api";

export interface FormSubmitOptions<T> {
  send: () => Promise<ApiResult<T>>;
  /** False while the form cannot go yet (an empty field): a submit then does nothing. */
  ready?: boolean;
  /** A problem found before sending (a password too short): said at once, nothing is sent. */
  check?: () => string | null;
  /**
   * Where a full page load goes on success (so the socket connects with the new cookie);
   * the button stays pending until the page leaves.
   */
  leaveTo?: () => string;
  onDone?: (data: T) => void;
  /** What the form says before any submit (a failed single sign-on, from the address). */
  initialError?: string | null;
}

/** An account form's submit: one request at a time, its refusal as the form's error, `done` after a success that stays on the page. */
export function useFormSubmit<T>({ send, ready = true, check, leaveTo, onDone, initialError = null }: FormSubmitOptions<T>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(initialError);
  const [done, setDone] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (pending || !ready) return;
    const problem = check?.() ?? null;
    if (problem) {
      setError(problem);
      return;
    }
    setPending(true);
    setError(null);
    setDone(false);
    const result = await send();
    if (result.ok && leaveTo) {
      window.location.assign(leaveTo());
      return;
    }
    setPending(false);
    if (!result.ok) {
      setError(result.message);
      return;
    }
    onDone?.(result.data);
    setDone(true);
  };

  return { pending, error, done, submit };
}
