import * as client from "openid-client";
import { z } from "zod";
import { safeNextPath } from "@/lib/accounts/safe-next";
import { ACCOUNT_ROUTES, type SsoFailureReason } from "@/lib/contracts/account";
import { isLoopbackIssuer, type Env } from "@/lib/env";
import type { Signer } from "./signer";

/**
 * Single sign-on over OpenID Connect (openid-client 6): the authorization code flow with
 * PKCE (S256), a state and a nonce per attempt, and the ID token checked (signature,
 * issuer, audience, expiry, nonce). What comes out is a `VerifiedIdentity`; matching it to
 * an account is the accounts service's job (`signInWithSso`).
 */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  /** Lowercased; null when the provider gave none (or one that is not an address). */
  email: string | null;
  /** True only when the provider said `email_verified: true` about this very email. */
  emailVerified: boolean;
  name: string | null;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Unset: a public client, PKCE alone. */
  clientSecret?: string;
  /** `${PUBLIC_URL}/api/auth/oidc/callback`, registered at the provider. */
  redirectUri: string;
  /** Seconds each request to the provider may take (a person is waiting). */
  timeoutS?: number;
}

/** A failed attempt, with the short reason the sign-in page shows (see SSO_FAILURE_MESSAGES). */
export class OidcError extends Error {
  constructor(
    readonly reason: SsoFailureReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OidcError";
  }
}

/** The attempt cookie: what the callback must match, kept by the browser that started. */
export const ATTEMPT_COOKIE = "dlg_oidc";
/** Sent only to the OIDC routes, not with every request. */
export const ATTEMPT_COOKIE_PATH = "/api/auth/oidc";
export const ATTEMPT_TTL_MS = 10 * 60_000;
/** Signed with this prefix, so no other signed cookie's signature verifies as an attempt. */
const ATTEMPT_PURPOSE = "oidc-attempt:";
const MAX_NEXT_CHARS = 1_000;
const MAX_EMAIL_CHARS = 254;
const MAX_NAME_CHARS = 80;
const SCOPE = "openid email profile";

const attemptSchema = z.object({
  /** PKCE code verifier. */
  v: z.string().min(43).max(128),
  s: z.string().min(1).max(200),
  n: z.string().min(1).max(200),
  next: z.string().max(MAX_NEXT_CHARS),
  /** Expiry, epoch ms. */
  exp: z.number(),
});
type Attempt = z.infer<typeof attemptSchema>;

export interface OidcClient {
  /** Starts an attempt: where to send the browser, and the value of the attempt cookie. */
  begin(next: string | null): Promise<{ location: string; attemptCookie: string }>;
  /**
   * Finishes the attempt the cookie describes with the provider's answer (the callback's
   * query). Throws OidcError on anything that is not a complete, verified sign-in.
   */
  complete(query: URLSearchParams, attemptCookie: string | undefined): Promise<{ identity: VerifiedIdentity; next: string }>;
}

export function createOidcClient(settings: OidcSettings, signer: Signer, now: () => number = Date.now): OidcClient {
  let configuration: Promise<client.Configuration> | undefined;

  /**
   * Discovery happens at the first sign-in, not at start (the provider may be down then),
   * and a failure is forgotten so the next attempt asks again.
   */
  function discover(): Promise<client.Configuration> {
    configuration ??= client
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None(),
        {
          timeout: settings.timeoutS ?? 10,
          // Signature checks are optional over TLS in the spec; we want them anyway, and a
          // loopback provider is plain HTTP, where nothing else vouches for the token.
          execute: [client.enableNonRepudiationChecks, ...(isLoopbackIssuer(settings.issuer) ? [client.allowInsecureRequests] : [])],
        },
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw new OidcError("unavailable", `The OpenID provider ${settings.issuer} cannot be reached: ${describe(error)}`, {
          cause: error,
        });
      });
    return configuration;
  }

  function sealAttempt(attempt: Attempt): string {
    const payload = Buffer.from(JSON.stringify(attempt)).toString("base64url");
    return `${payload}.${signer.sign(ATTEMPT_PURPOSE + payload)}`;
  }

  function openAttempt(cookie: string | undefined): Attempt {
    const dot = cookie?.lastIndexOf(".") ?? -1;
    if (!cookie || dot <= 0 || !signer.verify(ATTEMPT_PURPOSE + cookie.slice(0, dot), cookie.slice(dot + 1))) {
      throw new OidcError("expired", "No sign-in attempt was started in this browser (the attempt cookie is missing or not ours).");
    }
    let parsed: ReturnType<typeof attemptSchema.safeParse>;
    try {
      parsed = attemptSchema.safeParse(JSON.parse(Buffer.from(cookie.slice(0, dot), "base64url").toString("utf8")));
    } catch {
      throw new OidcError("expired", "The attempt cookie cannot be read.");
    }
    if (!parsed.success) throw new OidcError("expired", "The attempt cookie cannot be read.");
    if (parsed.data.exp <= now()) throw new OidcError("expired", "The sign-in attempt is older than 10 minutes.");
    return parsed.data;
  }

  return {
    async begin(next) {
      const config = await discover();
      const safeNext = safeNextPath(next);
      const attempt: Attempt = {
        v: client.randomPKCECodeVerifier(),
        s: client.randomState(),
        n: client.randomNonce(),
        next: safeNext.length <= MAX_NEXT_CHARS ? safeNext : "/",
        exp: now() + ATTEMPT_TTL_MS,
      };
      const location = client.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(attempt.v),
        code_challenge_method: "S256",
        state: attempt.s,
        nonce: attempt.n,
      });
      return { location: location.href, attemptCookie: sealAttempt(attempt) };
    },

    async complete(query, attemptCookie) {
      const attempt = openAttempt(attemptCookie);
      const config = await discover();
      // The redirect URI as registered, not as this request arrived (a proxy may have
      // rewritten the host): openid-client sends it again with the code.
      const callbackUrl = new URL(settings.redirectUri);
      callbackUrl.search = query.toString();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: attempt.v,
          expectedState: attempt.s,
          expectedNonce: attempt.n,
          idTokenExpected: true,
        });
      } catch (error) {
        throw failure(error);
      }
      const claims = tokens.claims();
      if (!claims) throw new OidcError("token", "The provider sent no ID token.");
      // Many providers (and the spec's default) put email and name in the UserInfo answer
      // only, not in the ID token. fetchUserInfo checks its subject is the ID token's.
      let userinfo: client.UserInfoResponse | undefined;
      const hasUserinfo = config.serverMetadata().userinfo_endpoint !== undefined;
      if (hasUserinfo && (typeof claims.email !== "string" || typeof claims.name !== "string")) {
        try {
          userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        } catch (error) {
          throw failure(error);
        }
      }
      return { identity: identityFrom(claims, userinfo), next: attempt.next };
    },
  };
}

/** Where the provider sends people back; registered at the provider. */
export function redirectUriFor(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${ACCOUNT_ROUTES.ssoCallback}`;
}

/** The client the configuration asks for, or null when no provider is configured (lib/env.ts checks the rest). */
export function oidcFromEnv(
  env: Pick<Env, "OIDC_ISSUER" | "OIDC_CLIENT_ID" | "OIDC_CLIENT_SECRET" | "PUBLIC_URL">,
  signer: Signer,
): OidcClient | null {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.PUBLIC_URL) return null;
  return createOidcClient(
    {
      issuer: env.OIDC_ISSUER,
      clientId: env.OIDC_CLIENT_ID,
      clientSecret: env.OIDC_CLIENT_SECRET,
      redirectUri: redirectUriFor(env.PUBLIC_URL),
    },
    signer,
  );
}

/**
 * The identity, from claims a provider controls: the email and its `email_verified` are
 * taken together from the same source (ID token first), so a verified flag about one
 * address never vouches for another.
 */
export function identityFrom(claims: client.IDToken, userinfo?: client.UserInfoResponse): VerifiedIdentity {
  const source = typeof claims.email === "string" ? claims : userinfo && typeof userinfo.email === "string" ? userinfo : undefined;
  const email = source ? cleanEmail(source.email) : null;
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email,
    emailVerified: email !== null && source?.email_verified === true,
    name: cleanName(typeof claims.name === "string" ? claims.name : userinfo?.name),
  };
}

const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;
const CONTROL = /[\p{Cc}\p{Cf}]+/gu;

function cleanEmail(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const email = value.trim().toLowerCase();
  return email.length <= MAX_EMAIL_CHARS && EMAIL.test(email) ? email : null;
}

function cleanName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const name = value.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return name ? [...name].slice(0, MAX_NAME_CHARS).join("") : null;
}

/** Maps what openid-client threw to the reason the person is shown. */
function failure(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  const message = describe(error);
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcError("denied", `The provider ended the sign-in: ${message}`, { cause: error });
  }
  if (error instanceof client.ResponseBodyError) {
    // invalid_grant: the code was used already, expired, or issued to another attempt.
    return new OidcError("code", `The provider refused the code: ${message}`, { cause: error });
  }
  if (error instanceof client.ClientError) {
    const chain = causes(error);
    if (chain.some((c) => c instanceof Error && /"state"/.test(c.message))) return new OidcError("state", message, { cause: error });
    if (chain.some((c) => (c as { claim?: unknown }).claim === "nonce")) return new OidcError("nonce", message, { cause: error });
    if (chain.some(isNetwork)) return new OidcError("unavailable", message, { cause: error });
    return new OidcError("token", message, { cause: error });
  }
  if (isNetwork(error)) return new OidcError("unavailable", message, { cause: error });
  return new OidcError("error", message, { cause: error });
}

/** openid-client wraps oauth4webapi's error, whose cause says which claim or parameter failed. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at: unknown = error; at !== undefined && at !== null && chain.length < 5; at = (at as { cause?: unknown }).cause) chain.push(at);
  return chain;
}

function isNetwork(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"));
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  const cause = causes(error)
    .slice(1)
    .filter((c): c is Error => c instanceof Error)
    .map((c) => ` (${c.message})`)
    .join("");
  return `${code ? `${code}: ` : ""}${error.message}${cause}`.slice(0, 500);
}
