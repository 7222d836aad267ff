import { parseCookie } from "cookie";
import type { ShareViewer } from "@/lib/contracts";
import type { AccountService } from "@/server/accounts/account-service";
import { AUTH_COOKIE, type PasswordGate } from "@/server/accounts/password-gate";
import { SESSION_COOKIE } from "@/server/http/account-routes";

/**
 * A share viewer's sign-in, for the share routes and the share namespace alike: any
 * account (account modes) or the APP_PASSWORD login; `{}` with no login at all. Null when
 * the instance has a login and these cookies carry no valid one.
 */
export function shareViewerSignIn(deps: {
  accounts?: AccountService;
  login?: { gate: PasswordGate };
}): (cookieHeader: string | undefined) => Promise<ShareViewer | null> {
  const { accounts, login } = deps;
  return async (cookieHeader) => {
    const cookies = parseCookie(cookieHeader ?? "");
    if (accounts) {
      const auth = await accounts.authenticate(cookies[SESSION_COOKIE]);
      return auth ? { accountId: auth.account._id, signInSessionId: auth.signInSessionId } : null;
    }
    if (login) {
      const authSession = await login.gate.verify(cookies[AUTH_COOKIE]);
      return authSession ? { authSession } : null;
    }
    return {};
  };
}
