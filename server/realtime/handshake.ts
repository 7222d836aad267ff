import { parseCookie } from "cookie";
import { HANDSHAKE_SIGNED_OUT } from "@/lib/contracts";
import type { AccountService } from "@/server/accounts/account-service";
import { IDENTITY_COOKIE, type Identity } from "@/server/accounts/identity";
import { AUTH_COOKIE, type PasswordGate } from "@/server/accounts/password-gate";
import { SESSION_COOKIE } from "@/server/http/account-routes";
import type { AppServer } from "./types";

type Middleware = Parameters<AppServer["use"]>[0];

/**
 * Who a socket is, settled at its handshake from the cookies the page was served with,
 * as the HTTP side settles it for a request: in the account modes the signed-in account,
 * otherwise the browser's identity cookie (behind the APP_PASSWORD login when there is one).
 */
export function handshakeAuth(deps: { accounts?: AccountService; login?: { gate: PasswordGate }; identity: Identity }): Middleware {
  return deps.accounts ? accountHandshake(deps.accounts) : browserHandshake(deps.identity, deps.login?.gate);
}

/** A valid sign-in session, checked against the database at every handshake. */
function accountHandshake(accounts: AccountService): Middleware {
  return (socket, next) => {
    const cookies = parseCookie(socket.request.headers.cookie ?? "");
    accounts.authenticate(cookies[SESSION_COOKIE]).then(
      (auth) => {
        if (!auth) {
          next(new Error(HANDSHAKE_SIGNED_OUT.accounts));
          return;
        }
        socket.data.userId = auth.account._id;
        socket.data.signInSessionId = auth.signInSessionId;
        next();
      },
      () => next(new Error("unavailable: the database is unreachable; try again in a moment")),
    );
  };
}

/** The identity cookie, and with APP_PASSWORD a login session too (checked against the database at every handshake). */
function browserHandshake(identity: Identity, gate: PasswordGate | undefined): Middleware {
  return (socket, next) => {
    const cookies = parseCookie(socket.request.headers.cookie ?? "");
    const login = gate ? gate.verify(cookies[AUTH_COOKIE]) : Promise.resolve(undefined);
    login.then(
      (authSession) => {
        if (gate && !authSession) {
          next(new Error(HANDSHAKE_SIGNED_OUT.password));
          return;
        }
        if (authSession) socket.data.authSession = authSession;
        const userId = identity.verify(cookies[IDENTITY_COOKIE]);
        if (!userId) {
          next(new Error("unauthorized: reload the page to get a session cookie"));
          return;
        }
        socket.data.userId = userId;
        next();
      },
      () => next(new Error("unavailable: the database is unreachable; try again in a moment")),
    );
  };
}
