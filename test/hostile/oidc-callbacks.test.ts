import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ATTEMPT_COOKIE } from "@/server/accounts/oidc";
import { createSigner } from "@/server/accounts/signer";
import { SECRET, startSsoApp, type SsoApp } from "@/test/support/oidc/sso-app";
import { expand, label, loadCorpus } from "./corpus";

/**
 * The SSO callback under hostile answers, from test-data/hostile/oidc-callbacks.json:
 * every case starts a genuine attempt at a real provider, then sends a doctored callback.
 * Nothing but the genuine answer, with its own attempt cookie, ever signs anyone in.
 */
interface CallbackCase {
  id: string;
  note?: string;
  query: unknown;
  cookie?: string;
  next?: unknown;
  expect: { reason?: string; signedIn?: boolean; location?: string };
}

const corpus = loadCorpus<CallbackCase>("oidc-callbacks.json");
let app: SsoApp;

beforeAll(async () => {
  app = await startSsoApp({ alice: { email: "alice@example.com", email_verified: true, name: "Alice" } });
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  app.signIns.length = 0;
});

function decode(value: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(value.split(".")[0]!, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** Seals an attempt payload the way the server does, with the given signer and purpose. */
function seal(payload: Record<string, unknown>, secret: string, purpose = "oidc-attempt:"): string {
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${encoded}.${createSigner(secret).sign(purpose + encoded)}`;
}

async function attemptCookieFor(kind: string, genuine: string, other: string): Promise<string> {
  const value = genuine.slice(ATTEMPT_COOKIE.length + 1);
  const payload = decode(value);
  switch (kind) {
    case "attempt":
      return genuine;
    case "none":
      return "";
    case "other-attempt":
      return other;
    case "other-attempt-then-attempt":
      return `${other}; ${genuine}`;
    case "forged-signature":
      return `${ATTEMPT_COOKIE}=${seal(payload, "another-secret-of-at-least-32-characters!!")}`;
    case "unsigned":
      return `${ATTEMPT_COOKIE}=${value.split(".")[0]}`;
    case "payload-changed":
      return `${ATTEMPT_COOKIE}=${Buffer.from(JSON.stringify({ ...payload, next: "//evil.example" })).toString("base64url")}.${value.split(".")[1]}`;
    case "other-purpose":
      return `${ATTEMPT_COOKIE}=${seal(payload, SECRET, "")}`;
    case "expired":
      return `${ATTEMPT_COOKIE}=${seal({ ...payload, exp: Date.now() - 1 }, SECRET)}`;
    case "huge":
      return `${ATTEMPT_COOKIE}=${"A".repeat(8000)}.${"B".repeat(43)}`;
    default:
      if (kind.startsWith("raw:")) return `${ATTEMPT_COOKIE}=${kind.slice(4)}`;
      throw new Error(`unknown cookie kind ${kind}`);
  }
}

describe("hostile SSO callbacks", () => {
  it.each(corpus.cases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const next = c.next === undefined ? undefined : String(expand(c.next));
    const genuine = await app.start(next);
    const back = await app.provider.signIn(genuine.location, "alice");
    // Another attempt, completed at the provider but never brought back: its cookie and code.
    const other = await app.start();
    const otherBack = await app.provider.signIn(other.location, "alice");
    const vars = {
      code: encodeURIComponent(back.searchParams.get("code") ?? ""),
      state: encodeURIComponent(back.searchParams.get("state") ?? ""),
      iss: encodeURIComponent(back.searchParams.get("iss") ?? ""),
      query: back.search.slice(1),
      otherCode: encodeURIComponent(otherBack.searchParams.get("code") ?? ""),
    };
    const query = String(expand(c.query, vars));
    const result = await app.callback(query, await attemptCookieFor(c.cookie ?? "attempt", genuine.cookie, other.cookie));

    expect(result.status).toBe(302);
    expect(result.attemptCleared).toBe(true);
    if (c.expect.signedIn) {
      expect(result.location).toBe(c.expect.location);
      expect(result.session).toBe("session-for-alice");
      expect(app.signIns).toHaveLength(1);
      return;
    }
    expect(result.location).toBe(`/login?error=sso&reason=${c.expect.reason}`);
    expect(result.session).toBeUndefined();
    expect(app.signIns).toEqual([]);
  });

  it("the genuine answer still signs in after all that (the control)", async () => {
    const started = await app.start("/c/ok");
    const back = await app.provider.signIn(started.location, "alice");
    expect(await app.callback(back.search.slice(1), started.cookie)).toEqual({
      status: 302,
      location: "/c/ok",
      session: "session-for-alice",
      attemptCleared: true,
    });
  });
});
