/**
 * The SSO callback sends a failed attempt back to `/login?error=sso&reason=…`. Only known
 * reason codes get their own words: the query string is anyone's to write, so it is
 * never shown as such (a crafted link must not put its own text on the sign-in page).
 */
const REASONS: Record<string, string> = {
  state: "The sign-in attempt expired or was started in another tab. Please try again.",
  nonce: "The identity provider's answer did not match this sign-in attempt, so it was refused. Please try again.",
  provider: "The identity provider reported a problem. Please try again, or ask your administrator.",
  denied: "The sign-in was cancelled at the identity provider.",
  access_denied: "The sign-in was cancelled at the identity provider.",
  refused: "Your identity was confirmed, but there is no account for it here. Ask an administrator for an invitation.",
  disabled: "This account is disabled. Ask an administrator.",
  email: "The identity provider did not confirm an email address for you, so no account could be matched.",
  unavailable: "The identity provider could not be reached. Please try again in a moment.",
};

const GENERIC = "Single sign-on did not complete. Please try again.";

/** The words for `?error=` and `?reason=` on the sign-in page; null when nothing failed. */
export function ssoErrorText(error: string | null, reason: string | null): string | null {
  if (error !== "sso") return null;
  return (reason && Object.hasOwn(REASONS, reason) ? REASONS[reason] : undefined) ?? GENERIC;
}
