"use client";

import { useCallback, useEffect, useState } from "react";
import { clearCachedChatData } from "@/components/pwa/clear-cached-data";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES, type AccountView, type SignInSessionView } from "@/lib/contracts/account";
import { fetchList, post } from "./account-api";
import { DANGER_BUTTON, Field, FormError, Notice, PASSWORD_RULE, passwordProblem, PRIMARY_BUTTON, SECONDARY_BUTTON } from "./fields";
import { useAuthState } from "./use-auth-state";
import { useFormSubmit } from "./use-form-submit";
import { PageFrame, Section, When } from "./page-frame";
import { describeUserAgent } from "./user-agent";
import { OwnQuota } from "./own-quota";

/** /account: who you are, your password, and the browsers signed in as you. */
export function AccountPage() {
  const { state } = useAuthState();
  const account = state?.account ?? null;
  useEffect(() => {
    // The server sends a signed-out browser to /login first; this covers single mode.
    if (state && !account)
      window.location.replace(state.mode === "single" ? "/" : `${ACCOUNT_PAGES.signIn}?next=${encodeURIComponent(ACCOUNT_PAGES.account)}`);
  }, [state, account]);
  return (
    <PageFrame title="Your account">
      {account ? (
        <>
          <Profile account={account} />
          <OwnQuota />
          {account.hasPassword ? <ChangePassword /> : null}
          <Browsers />
        </>
      ) : (
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          Loading…
        </p>
      )}
    </PageFrame>
  );
}

function Profile({ account }: { account: AccountView }) {
  return (
    <Section title="Profile" testId="account-profile">
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className="text-zinc-600 dark:text-zinc-400">Name</dt>
        <dd data-testid="account-name" className="min-w-0 break-words">
          {account.displayName || "—"}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Email</dt>
        <dd data-testid="account-email" className="min-w-0 break-all">
          {account.email}
        </dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Role</dt>
        <dd>{account.role === "admin" ? "Administrator" : "Member"}</dd>
        <dt className="text-zinc-600 dark:text-zinc-400">Since</dt>
        <dd>
          <When iso={account.createdAt} />
        </dd>
        {!account.hasPassword ? (
          <>
            <dt className="text-zinc-600 dark:text-zinc-400">Sign-in</dt>
            <dd>Single sign-on only (no password)</dd>
          </>
        ) : null}
      </dl>
    </Section>
  );
}

function ChangePassword() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const { pending, error, done, submit } = useFormSubmit({
    check: () => passwordProblem(next),
    send: () => post(ACCOUNT_ROUTES.password, { current, next }),
    onDone: () => {
      setCurrent("");
      setNext("");
    },
  });

  return (
    <Section title="Password" description="Changing it signs out every other browser signed in to this account; this one stays signed in.">
      <form onSubmit={submit} className="max-w-sm space-y-4" data-testid="change-password">
        {/* Lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" hidden readOnly />
        <Field
          label="Current password"
          name="current-password"
          type="password"
          autoComplete="current-password"
          testId="password-current"
          value={current}
          onChange={setCurrent}
        />
        <Field
          label="New password"
          name="new-password"
          type="password"
          autoComplete="new-password"
          testId="password-next"
          value={next}
          onChange={setNext}
          hint={PASSWORD_RULE}
        />
        <FormError message={error} />
        {done ? <Notice>Password changed. Other browsers were signed out.</Notice> : null}
        <button type="submit" data-testid="password-submit" disabled={pending || !current || !next} className={PRIMARY_BUTTON}>
          {pending ? "Changing…" : "Change password"}
        </button>
      </form>
    </Section>
  );
}

function Browsers() {
  const [list, setList] = useState<SignInSessionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<string | null>(null);

  const load = useCallback(async () => {
    const result = await fetchList<SignInSessionView>(ACCOUNT_ROUTES.sessions);
    if (result.ok) {
      setList(result.data);
      setError(null);
    } else setError(`Could not load the signed-in browsers: ${result.message}`);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const revoke = async (session: SignInSessionView) => {
    setPending(session.id);
    const result = await post(ACCOUNT_ROUTES.revokeSession(session.id));
    setPending(null);
    if (!result.ok) setError(`Could not sign that browser out: ${result.message}`);
    else if (session.current) {
      await clearCachedChatData();
      window.location.assign(ACCOUNT_PAGES.signIn);
    } else await load();
  };

  const everywhere = async () => {
    setPending("everywhere");
    const result = await post(ACCOUNT_ROUTES.signOutEverywhere);
    if (result.ok) {
      await clearCachedChatData();
      window.location.assign(ACCOUNT_PAGES.signIn);
      return;
    }
    setPending(null);
    setError(`Could not sign out everywhere: ${result.message}`);
  };

  return (
    <Section
      title="Signed-in browsers"
      description="Each browser or device signed in as you. Signing one out ends its open chats' connection at once."
      testId="account-browsers"
    >
      <FormError message={error} />
      {list === null ? (
        error ? null : (
          <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
            Loading…
          </p>
        )
      ) : (
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {list.map((session) => (
            <li
              key={session.id}
              data-testid="browser-session"
              data-current={session.current}
              className="flex flex-wrap items-center gap-x-4 gap-y-2 px-3 py-2.5 text-sm"
            >
              <div className="min-w-0 flex-1">
                <p className="font-medium break-words" title={session.userAgent}>
                  {describeUserAgent(session.userAgent)}
                  {session.current ? (
                    <span className="ml-2 inline-block rounded-full whitespace-nowrap bg-emerald-100 px-2 py-0.5 text-xs font-medium text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200">
                      This browser
                    </span>
                  ) : null}
                </p>
                <p className="text-xs text-zinc-600 dark:text-zinc-400">
                  {session.method === "sso" ? "Single sign-on" : "Password"} · signed in <When iso={session.createdAt} /> · last seen{" "}
                  <When iso={session.lastSeenAt} />
                </p>
              </div>
              <button
                type="button"
                data-testid="browser-revoke"
                disabled={pending !== null}
                onClick={() => void revoke(session)}
                aria-label={session.current ? "Sign out this browser" : `Sign out ${describeUserAgent(session.userAgent)}`}
                className={SECONDARY_BUTTON}
              >
                Sign out
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        data-testid="sign-out-everywhere"
        disabled={pending !== null}
        onClick={() => void everywhere()}
        className={DANGER_BUTTON}
      >
        {pending === "everywhere" ? "Signing out…" : "Sign out everywhere"}
      </button>
    </Section>
  );
}
