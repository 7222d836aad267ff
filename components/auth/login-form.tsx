"use client";

import { useState, type FormEvent } from "react";
import { z } from "zod";
import { safeNextPath } from "@/lib/accounts/safe-next";

const errorBodySchema = z.object({ error: z.object({ message: z.string() }) });

export function LoginForm() {
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!password || pending) return;
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        credentials: "same-origin",
        body: JSON.stringify({ password }),
      });
      if (res.ok) {
        // A full load, so the socket connects with the new cookie.
        window.location.assign(safeNextPath(new URLSearchParams(window.location.search).get("next")));
        return;
      }
      const body = errorBodySchema.safeParse(await res.json().catch(() => null));
      setError(body.success ? body.data.error.message : `Login failed (${res.status}).`);
    } catch {
      setError("Could not reach the server.");
    }
    setPending(false);
  };

  return (
    <form onSubmit={submit} className="w-full max-w-sm space-y-4 rounded-xl border border-zinc-200 p-6 shadow-sm dark:border-zinc-800">
      <div>
        <h1 className="text-lg font-semibold">Delegate</h1>
        <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">This instance is password protected.</p>
      </div>
      <div className="space-y-1.5">
        <label htmlFor="password" className="text-sm font-medium">
          Password
        </label>
        <input
          id="password"
          data-testid="login-password"
          type="password"
          autoComplete="current-password"
          autoFocus
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-900"
        />
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        data-testid="login-submit"
        disabled={!password || pending}
        className="w-full rounded-md bg-sky-600 px-3 py-2 text-sm font-medium text-white hover:bg-sky-700 disabled:opacity-50"
      >
        {pending ? "Logging in…" : "Log in"}
      </button>
    </form>
  );
}
