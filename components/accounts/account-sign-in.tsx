"use client";

import Link from "next/link";
import { useState } from "react";
import { safeNextPath } from "@/lib/accounts/safe-next";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES, type AuthState } from "@/lib/contracts/account";
import { post } from "./account-api";
import { AuthCard, Field, FormError, LINK_CLASS, PRIMARY_BUTTON } from "./fields";
import { ssoErrorText } from "./sso-error";
import { useFormSubmit } from "./use-form-submit";

/** Sign-in in the account modes: email and password (not in sso mode), the SSO button, sign-up. */
export function AccountSignIn({ state, params }: { state: AuthState; params: URLSearchParams }) {
  const next = safeNextPath(params.get("next"));
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { pending, error, submit } = useFormSubmit({
    send: () => post(ACCOUNT_ROUTES.signIn, { email, password }),
    ready: email !== "" && password !== "",
    leaveTo: () => next,
    initialError: ssoErrorText(params.get("error"), params.get("reason")),
  });
  const passwords = state.mode !== "sso";

  const ssoHref = `${ACCOUNT_ROUTES.ssoStart}?next=${encodeURIComponent(next)}`;
  return (
    <AuthCard
      title="Sign in to Delegate"
      intro={passwords ? "Your chats, on every device you sign in from." : "This instance signs in through your organisation."}
    >
      {passwords ? (
        <form onSubmit={submit} className="space-y-4" data-testid="sign-in-form">
          <Field
            label="Email"
            name="email"
            type="email"
            autoComplete="username"
            testId="sign-in-email"
            value={email}
            onChange={setEmail}
            autoFocus
          />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            testId="sign-in-password"
            value={password}
            onChange={setPassword}
          />
          <FormError message={error} />
          <button
            type="submit"
            data-testid="sign-in-submit"
            disabled={pending || !email || !password}
            className={`w-full ${PRIMARY_BUTTON}`}
          >
            {pending ? "Signing in…" : "Sign in"}
          </button>
        </form>
      ) : (
        <FormError message={error} />
      )}
      {state.sso ? (
        <>
          {passwords ? (
            <div className="flex items-center gap-3 text-xs text-zinc-600 dark:text-zinc-400" aria-hidden="true">
              <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
              or
              <span className="h-px flex-1 bg-zinc-200 dark:bg-zinc-800" />
            </div>
          ) : null}
          <a
            href={ssoHref}
            data-testid="sign-in-sso"
            className="block w-full rounded-md border border-zinc-300 px-3 py-2 text-center text-sm font-medium text-zinc-900 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-100 dark:hover:bg-zinc-800"
          >
            {state.sso.label}
          </a>
        </>
      ) : null}
      {state.signUpOpen && passwords ? (
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          New here?{" "}
          <Link
            href={next === "/" ? ACCOUNT_PAGES.signUp : `${ACCOUNT_PAGES.signUp}?next=${encodeURIComponent(next)}`}
            data-testid="sign-up-link"
            className={LINK_CLASS}
          >
            Create an account
          </Link>
        </p>
      ) : null}
    </AuthCard>
  );
}
