"use client";

import { clearCachedChatData } from "@/components/pwa/clear-cached-data";
import { PopoverMenu } from "@/components/ui/popover-menu";
import { ACCOUNT_PAGES, ACCOUNT_ROUTES } from "@/lib/contracts/account";
import { USAGE_PATH } from "@/lib/usage/links";
import { post } from "./account-api";
import { useAuthState } from "./use-auth-state";

const ITEM =
  "block w-full rounded-md px-3 py-2 text-left text-sm text-zinc-800 hover:bg-zinc-100 focus:bg-zinc-100 focus:outline-none dark:text-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800";

/**
 * The signed-in account in the header: its name, then Account, Admin (admins), Usage, Sign out.
 * A menu button as the ARIA pattern has it: Enter, Space or ArrowDown open it on the first
 * item, arrows move, Escape closes it back onto the button. Nothing shows in single mode.
 */
export function AccountMenu() {
  const { state } = useAuthState();
  const account = state?.account;
  if (!account) return null;
  const name = account.displayName || account.email;

  const signOut = async () => {
    await post(ACCOUNT_ROUTES.signOut);
    await clearCachedChatData();
    window.location.assign(ACCOUNT_PAGES.signIn);
  };

  return (
    <PopoverMenu
      kind="menu"
      button={
        <>
          <span
            aria-hidden="true"
            className="flex size-6 shrink-0 items-center justify-center rounded-full bg-sky-700 text-[11px] font-semibold text-white uppercase"
          >
            {Array.from(name)[0] ?? "?"}
          </span>
          <span className="hidden truncate sm:inline">{name}</span>
        </>
      }
      buttonLabel={`Account: ${name}`}
      buttonTestId="account-menu-button"
      buttonClassName="flex max-w-40 items-center gap-1.5 rounded-md px-1.5 py-1 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-200 dark:hover:bg-zinc-800"
      label="Account"
      panelTestId="account-menu"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(16rem,calc(100vw-1rem))] rounded-lg border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      <div className="px-3 py-2" role="presentation">
        <p className="truncate text-sm font-medium text-zinc-900 dark:text-zinc-100">{account.displayName || "Signed in"}</p>
        <p className="truncate text-xs text-zinc-600 dark:text-zinc-400">{account.email}</p>
      </div>
      <div className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" role="separator" />
      <a role="menuitem" tabIndex={-1} href={ACCOUNT_PAGES.account} data-testid="account-menu-account" className={ITEM}>
        Account
      </a>
      {account.role === "admin" ? (
        <a role="menuitem" tabIndex={-1} href={ACCOUNT_PAGES.admin} data-testid="account-menu-admin" className={ITEM}>
          Admin
        </a>
      ) : null}
      <a role="menuitem" tabIndex={-1} href={USAGE_PATH} data-testid="account-menu-usage" className={ITEM}>
        Usage
      </a>
      <button
        role="menuitem"
        tabIndex={-1}
        type="button"
        data-testid="account-menu-sign-out"
        onClick={() => void signOut()}
        className={ITEM}
      >
        Sign out
      </button>
    </PopoverMenu>
  );
}
