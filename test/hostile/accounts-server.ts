import { ACCOUNT_ROUTES, type AuthState, type SignInSessionView } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";

/**
 * The real server in open account mode for the corpus's account cases
 * (`"server": "accounts"` in http-requests.json): an admin, a victim and an attacker who
 * is a signed-in member, plus the cookies the cases send as someone (`"as"`): nobody, a
 * disabled account, a signed-out session. The throttle is lax: every case comes from
 * 127.0.0.1, and throttling has its own test (server/accounts/modes.test.ts).
 */
export const VICTIM_PASSWORD = "victim passphrase 1";

export interface AccountsHostileServer {
  harness: Harness;
  /** The Cookie header each `as` sends. */
  cookies: Record<"attacker" | "anonymous" | "disabled" | "revoked", string>;
  vars: Record<string, string>;
  /** Fails unless the victim is still signed in and served. */
  victimServed(): Promise<void>;
  close(): Promise<void>;
}

export async function startAccountsHostileServer(label: string): Promise<AccountsHostileServer> {
  const harness = await startHarness(label, {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 10_000 }),
    notify: { vapid: { subject: "mailto:hostile@example.com" } },
  });
  const jar = () => new CookieJar(harness.baseUrl);
  const signUp = async (email: string, password = "some passphrase") => {
    const j = jar();
    const res = await j.post(ACCOUNT_ROUTES.signUp, { email, password });
    if (res.status !== 200) throw new Error(`sign-up of ${email}: ${JSON.stringify(res.body)}`);
    return j;
  };
  const idOf = async (j: CookieJar) => (await j.get<AuthState>(ACCOUNT_ROUTES.state)).body.account!.id;

  const admin = await signUp("admin@example.com");
  const victim = await signUp("victim@example.com", VICTIM_PASSWORD);
  const attacker = await signUp("attacker@example.com");
  // A second session of the attacker's, planted into the fixation case (which revokes it).
  const planted = jar();
  await planted.post(ACCOUNT_ROUTES.signIn, { email: "attacker@example.com", password: "some passphrase" });
  const disabled = await signUp("disabled@example.com");
  const disabledId = await idOf(disabled);
  const off = await admin.post(ACCOUNT_ROUTES.adminDisable(disabledId), { disabled: true });
  if (off.status !== 200) throw new Error("could not disable");
  const revoked = await signUp("revoked@example.com");
  const revokedHeader = revoked.header;
  await revoked.post(ACCOUNT_ROUTES.signOut);
  const victimSession = (await victim.get<SignInSessionView[]>(ACCOUNT_ROUTES.sessions)).body[0]!.id;

  return {
    harness,
    cookies: { attacker: attacker.header, anonymous: "", disabled: disabled.header, revoked: revokedHeader },
    vars: {
      adminAccount: await idOf(admin),
      victimAccount: await idOf(victim),
      disabledAccount: disabledId,
      victimSession,
      plantedToken: planted.cookie("dlg_session")!,
      victimPassword: VICTIM_PASSWORD,
    },
    async victimServed() {
      const state = (await victim.get<AuthState>(ACCOUNT_ROUTES.state)).body;
      if (state.account?.email !== "victim@example.com") throw new Error(`the victim was signed out: ${JSON.stringify(state)}`);
    },
    close: () => harness.close(),
  };
}
