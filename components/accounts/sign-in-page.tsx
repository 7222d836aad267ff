"use client";

import { useEffect, useState } from "react";
import { safeNextPath } from "@/lib/accounts/safe-next";
import type { AuthState } from "@/lib/contracts/account";
import { fetchAuthState } from "./account-api";
import { AccountSignIn } from "./account-sign-in";
import { LoginForm } from "./login-form";

/**
 * /login serves both gates: in single mode the APP_PASSWORD form exactly as before, in the
 * account modes the account sign-in. Which one is the server's answer to /api/auth/state
 * (the password gate answers that with 401, which reads as single mode).
 */
export function SignInPage() {
  const [view, setView] = useState<{ state: AuthState; params: URLSearchParams } | null>(null);
  useEffect(() => {
    let alive = true;
    void fetchAuthState().then((state) => {
      const params = new URLSearchParams(window.location.search);
      // Already signed in (a second tab, the back button): straight on to where they were going.
      if (state.account) window.location.replace(safeNextPath(params.get("next")));
      else if (alive) setView({ state, params });
    });
    return () => {
      alive = false;
    };
  }, []);
  if (!view) return <main className="h-full" aria-busy="true" />;
  if (view.state.mode === "single") {
    return (
      <main className="flex h-full items-center justify-center overflow-y-auto px-4">
        <LoginForm />
      </main>
    );
  }
  return <AccountSignIn state={view.state} params={view.params} />;
}
