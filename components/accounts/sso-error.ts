import { ssoFailureMessage } from "@/lib/contracts/account";

/**
 * The SSO callback sends a failed attempt back to `/login?error=sso&reason=…`. Only known
 * reason codes get their own words (lib/contracts/account.ts, shared with the callback):
 * the query string is anyone's to write, so it is never shown as such (a crafted link
 * must not put its own text on the sign-in page).
 */
export function ssoErrorText(error: string | null, reason: string | null): string | null {
  return error === "sso" ? ssoFailureMessage(reason) : null;
}
