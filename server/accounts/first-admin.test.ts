import { afterEach, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type AuthMode, type AuthState } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { testDatabaseUri } from "@/test/support/server/database";
import { EMAIL_TAKEN, INVITATION_NEEDED } from "./account-service";
import { createLoginThrottle } from "./login-throttle";

/**
 * Two app processes on one empty database, sign-ups sent to both at the same moment: the
 * database, not either process, decides who is first and whose email it is.
 */
let apps: Harness[] = [];
const PASSWORD = "correct horse battery";

async function twoApps(mode: AuthMode): Promise<Harness[]> {
  const mongoUri = testDatabaseUri(`first_admin_${mode}`);
  const start = () =>
    startHarness("first-admin", {
      runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
      mongoUri,
      authMode: mode,
      // Every request comes from 127.0.0.1: throttling has its own tests.
      accountThrottle: createLoginThrottle({ maxFailures: 1000 }),
    });
  apps = [await start(), await start()];
  return apps;
}
afterEach(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
});

/** `count` sign-ups sent at once, alternating between the two processes. */
function signUpsAtOnce(count: number, email: (i: number) => string) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const jar = new CookieJar(apps[i % 2]!.baseUrl);
      const answer = await jar.post<{ error?: { code: string; message: string } }>(ACCOUNT_ROUTES.signUp, {
        email: email(i),
        password: PASSWORD,
      });
      const state = answer.status === 200 ? (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body : null;
      return { ...answer, role: state?.account?.role };
    }),
  );
}

describe("the first account and unique emails, decided by the database", () => {
  it("open mode: of first sign-ups on two processes at once, exactly one becomes the admin", async () => {
    const [a] = await twoApps("open");
    const answers = await signUpsAtOnce(8, (i) => `person${i}@example.com`);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(answers.filter((r) => r.role === "admin")).toHaveLength(1);
    expect(await a!.models.Account.countDocuments({ role: "admin" })).toBe(1);
    expect(await a!.models.Account.countDocuments({})).toBe(8);
  });

  it("invite mode on an empty server: only the one who becomes the admin gets in without an invitation", async () => {
    const [a] = await twoApps("invite");
    const answers = await signUpsAtOnce(6, (i) => `person${i}@example.com`);
    const admitted = answers.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(1);
    expect(admitted[0]!.role).toBe("admin");
    for (const refused of answers.filter((r) => r.status !== 200)) {
      expect(refused).toMatchObject({ status: 400, body: { error: { code: "bad_request", message: INVITATION_NEEDED } } });
    }
    expect(await a!.models.Account.countDocuments({})).toBe(1);
  });

  it("a duplicate email sent to two processes at once: one account, the others told it exists (409, never 500)", async () => {
    const [a] = await twoApps("open");
    const answers = await signUpsAtOnce(6, () => "same@example.com");
    expect(await a!.models.Account.countDocuments({ email: "same@example.com" })).toBe(1);
    // The one that made it is in, and so is any that came after it and signed in with the same
    // password; one that raced it is told the account exists.
    for (const answer of answers) {
      if (answer.status === 200) continue;
      expect(answer).toMatchObject({ status: 409, body: { error: { code: "conflict", message: EMAIL_TAKEN } } });
    }
  });
});
