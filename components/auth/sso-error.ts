/**
 * The SSO callback sends a failed attempt back to `/login?error=sso&reason=…`. Only known
 * reason codes get their own words: the query string is anyone's to write, so it is
 * never shown as such (a crafted link must not put its own text on the sign-in page).
 */
const TRY_AGAIN = "Single sign-on could not be completed. Start again from this page.";
const REASONS: Record<string, string> = {
  unavailable: "The sign-in provider cannot be reached right now. Try again in a minute.",
  expired: "That sign-in took too long, or was started in another browser. Start again from this page.",
  state: TRY_AGAIN,
  nonce: TRY_AGAIN,
  token: TRY_AGAIN,
  code: TRY_AGAIN,
  denied: "The sign-in was cancelled at the provider.",
  refused: "That account cannot sign in here. Ask an admin for access.",
  error: TRY_AGAIN,
};

/** The words for `?error=` and `?reason=` on the sign-in page; null when nothing failed. */
export function ssoErrorText(error: string | null, reason: string | null): string | null {
  if (error !== "sso") return null;
  return (reason && Object.hasOwn(REASONS, reason) ? REASONS[reason] : undefined) ?? TRY_AGAIN;
}
