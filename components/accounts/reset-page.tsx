"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES } from "@/lib/contracts/account";
import { post } from "./account-api";
import { AuthCard, Field, FormError, LINK_CLASS, PASSWORD_RULE, passwordProblem, PRIMARY_BUTTON } from "./fields";
import { useFormSubmit } from "./use-form-submit";

/** /reset?token=…: a new password from an admin's one-time link; the server signs this browser in with it. */
export function ResetPage() {
  const [token, setToken] = useState<string | null | undefined>(undefined);
  const [password, setPassword] = useState("");
  const { pending, error, done, submit } = useFormSubmit({
    check: () => passwordProblem(password),
    send: () => post(ACCOUNT_ROUTES.reset, { token, password }),
  });
  useEffect(() => setToken(new URLSearchParams(window.location.search).get("token")), []);

  if (token === undefined) return <main className="h-full" aria-busy="true" />;
  if (!token) {
    return (
      <AuthCard
        title="This link is incomplete"
        intro="A password reset link comes from an administrator of this instance. Ask them for a new one."
      >
        <SignInLink />
      </AuthCard>
    );
  }
  if (done) {
    return (
      <AuthCard
        title="Your password is set"
        intro="You are signed in here; every other browser that was signed in to this account was signed out."
      >
        {/* A full page load, not a client navigation: the chats page renders anew for the session the reset just signed in. */}
        {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
        <a href="/" data-testid="reset-continue" className={`block w-full text-center ${PRIMARY_BUTTON}`}>
          Continue to your chats
        </a>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Choose a new password" intro="This link works once. Setting a password signs the account out everywhere.">
      <form onSubmit={submit} className="space-y-4" data-testid="reset-form">
        <Field
          label="New password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          testId="reset-password"
          value={password}
          onChange={setPassword}
          hint={PASSWORD_RULE}
          autoFocus
        />
        <FormError message={error} />
        <button type="submit" data-testid="reset-submit" disabled={pending || !password} className={`w-full ${PRIMARY_BUTTON}`}>
          {pending ? "Saving…" : "Set password"}
        </button>
      </form>
    </AuthCard>
  );
}

function SignInLink() {
  return (
    <p className="text-sm">
      <Link href={ACCOUNT_PAGES.signIn} className={LINK_CLASS}>
        Go to sign in
      </Link>
    </p>
  );
}
