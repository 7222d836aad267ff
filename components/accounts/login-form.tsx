"use client";

import { useState } from "react";
import { post } from "./account-api";
import { FormError } from "./fields";
import { safeNextPath } from "@/lib/accounts/safe-next";
import { useFormSubmit } from "./use-form-submit";

export function LoginForm() {
  const [password, setPassword] = useState("");
  const { pending, error, submit } = useFormSubmit({
    send: () => post("/api/login", { password }),
    ready: password !== "",
    leaveTo: () => safeNextPath(new URLSearchParams(window.location.search).get("next")),
  });

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
      <FormError message={error} />
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
