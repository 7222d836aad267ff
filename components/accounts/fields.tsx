"use client";

import { useId, type ReactNode } from "react";
import { PASSWORD_MAX, PASSWORD_MIN } from "@/lib/contracts/account";

/** The field style of the APP_PASSWORD form, shared by every account form. */
export const INPUT_CLASS =
  "w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-900";
export const PRIMARY_BUTTON = "rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-50";
export const SECONDARY_BUTTON =
  "rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium text-zinc-800 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:text-zinc-100 dark:hover:bg-zinc-800";
export const DANGER_BUTTON =
  "rounded-md border border-red-300 px-3 py-1.5 text-sm font-medium text-red-800 hover:bg-red-50 disabled:opacity-50 dark:border-red-900 dark:text-red-300 dark:hover:bg-red-950/50";
export const LINK_CLASS = "font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-400";

/** A centred card for the pages a person sees before the chat (sign-in, sign-up, reset). */
export function AuthCard({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  return (
    <main className="flex h-full items-start justify-center overflow-y-auto px-4 py-10 sm:items-center">
      <div className="w-full max-w-sm space-y-4 rounded-xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800">
        <div>
          <h1 className="text-lg font-semibold">{title}</h1>
          {intro ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{intro}</p> : null}
        </div>
        {children}
      </div>
    </main>
  );
}

export interface FieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: "text" | "email" | "password";
  /** Password managers and phones rely on these (email, name, current-password, new-password). */
  autoComplete: string;
  name: string;
  testId?: string;
  autoFocus?: boolean;
  required?: boolean;
  /** Shown under the field before anything is submitted (a rule, not an error). */
  hint?: string;
}

export function Field({ label, value, onChange, type = "text", autoComplete, name, testId, autoFocus, required = true, hint }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="space-y-1.5">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        name={name}
        data-testid={testId}
        type={type}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        required={required}
        spellCheck={false}
        autoCapitalize={type === "text" ? undefined : "none"}
        aria-describedby={hint ? hintId : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className={INPUT_CLASS}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** The length rule, said before submit (current guidance: length, not composition). */
export const PASSWORD_RULE = `At least ${PASSWORD_MIN} characters (up to ${PASSWORD_MAX}); spaces and any characters are fine.`;

/** The contract's own rule, checked before a request so the person hears it at once. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `A password needs at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `A password has at most ${PASSWORD_MAX} characters.`;
  return null;
}

export function FormError({ message }: { message: string | null }) {
  return message ? (
    <p role="alert" data-testid="form-error" className="text-sm text-red-700 dark:text-red-400">
      {message}
    </p>
  ) : null;
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
      {children}
    </p>
  );
}
