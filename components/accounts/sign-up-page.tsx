"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { safeNextPath } from "@/lib/accounts/safe-next";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES, type AuthState } from "@/lib/contracts/account";
import { fetchAuthState, post } from "./account-api";
import { AuthCard, Field, FormError, LINK_CLASS, PASSWORD_RULE, passwordProblem, PRIMARY_BUTTON } from "./fields";
import { useFormSubmit } from "./use-form-submit";

/**
 * /signup, and /signup?invite=… from an admin's invitation link. The server decides
 * whether the invitation is good; this page only says why sign-up is closed when the
 * state says so and no invitation came with the link.
 */
export function SignUpPage() {
  const [state, setState] = useState<AuthState | null>(null);
  const [params, setParams] = useState<URLSearchParams | null>(null);
  useEffect(() => {
    let alive = true;
    void fetchAuthState().then((s) => {
      if (!alive) return;
      setParams(new URLSearchParams(window.location.search));
      setState(s);
    });
    return () => {
      alive = false;
    };
  }, []);
  if (!state || !params) return <main className="h-full" aria-busy="true" />;
  const invite = params.get("invite");
  if (state.mode === "single" || state.mode === "sso" || (!invite && !state.signUpOpen)) {
    return (
      <AuthCard
        title="Sign-up is closed"
        intro={
          state.mode === "sso"
            ? "This instance signs in through your organisation."
            : "Ask an administrator of this instance for an invitation link."
        }
      >
        <p className="text-sm">
          <Link href={ACCOUNT_PAGES.signIn} className={LINK_CLASS}>
            Go to sign in
          </Link>
        </p>
      </AuthCard>
    );
  }
  return <SignUpForm invite={invite} next={safeNextPath(params.get("next"))} />;
}

function SignUpForm({ invite, next }: { invite: string | null; next: string }) {
  const [email, setEmail] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [password, setPassword] = useState("");
  const { pending, error, submit } = useFormSubmit({
    check: () => passwordProblem(password),
    send: () =>
      post(ACCOUNT_ROUTES.signUp, {
        email,
        password,
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
        ...(invite ? { invite } : {}),
      }),
    leaveTo: () => next,
  });

  return (
    <AuthCard
      title="Create your account"
      intro={invite ? "You were invited to this Delegate instance." : "Your chats, on every device you sign in from."}
    >
      <form onSubmit={submit} className="space-y-4" data-testid="sign-up-form">
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          testId="sign-up-email"
          value={email}
          onChange={setEmail}
          autoFocus
        />
        <Field
          label="Name"
          name="name"
          autoComplete="name"
          testId="sign-up-name"
          value={displayName}
          onChange={setDisplayName}
          required={false}
          hint="How Delegate greets you; optional."
        />
        <Field
          label="Password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          testId="sign-up-password"
          value={password}
          onChange={setPassword}
          hint={PASSWORD_RULE}
        />
        <FormError message={error} />
        <button type="submit" data-testid="sign-up-submit" disabled={pending || !email || !password} className={`w-full ${PRIMARY_BUTTON}`}>
          {pending ? "Creating your account…" : "Create account"}
        </button>
      </form>
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Already have an account?{" "}
        <Link href={ACCOUNT_PAGES.signIn} className={LINK_CLASS}>
          Sign in
        </Link>
      </p>
    </AuthCard>
  );
}
