import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("parseEnv", () => {
  it("applies defaults when nothing is set", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.MODEL).toBeUndefined();
    expect(env.MAX_SPAWN_DEPTH).toBe(3);
    expect(env.MAX_CHILDREN_PER_AGENT).toBe(5);
    expect(env.MAX_RESULT_TOKENS).toBe(4000);
    expect(env.URL_FETCH_ENABLED).toBe(false);
    expect(env.MAX_STEPS).toBe(25);
    expect(env.RESULT_FOOTER).toBe(true);
  });

  it("AUTH_MODE is single unless set, takes the four modes, and names what is wrong", () => {
    expect(parseEnv({}).AUTH_MODE).toBe("single");
    for (const mode of ["single", "open", "invite"]) expect(parseEnv({ AUTH_MODE: mode }).AUTH_MODE).toBe(mode);
    const provider = { OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "delegate", PUBLIC_URL: "https://chat.example.com" };
    expect(parseEnv({ AUTH_MODE: "sso", ...provider }).AUTH_MODE).toBe("sso");
    expect(() => parseEnv({ AUTH_MODE: "everyone" })).toThrow(/AUTH_MODE/);
  });

  it("METRICS_TOKEN is unset when blank, and refused when short enough to guess", () => {
    expect(parseEnv({}).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_TOKEN: "" }).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_TOKEN: "0123456789abcdef" }).METRICS_TOKEN).toBe("0123456789abcdef");
    expect(() => parseEnv({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it("VAPID keys come as a pair of base64url keys, with a mailto: or https: subject", () => {
    const pair = { VAPID_PUBLIC_KEY: `B${"a".repeat(86)}`, VAPID_PRIVATE_KEY: "k".repeat(43) };
    expect(parseEnv(pair)).toMatchObject(pair);
    expect(parseEnv({ VAPID_PUBLIC_KEY: "", VAPID_PRIVATE_KEY: "" }).VAPID_PUBLIC_KEY).toBeUndefined();
    expect(() => parseEnv({ VAPID_PUBLIC_KEY: pair.VAPID_PUBLIC_KEY })).toThrow(/VAPID_PRIVATE_KEY: is required with VAPID_PUBLIC_KEY/);
    expect(() => parseEnv({ VAPID_PRIVATE_KEY: pair.VAPID_PRIVATE_KEY })).toThrow(/VAPID_PUBLIC_KEY: is required with VAPID_PRIVATE_KEY/);
    expect(() => parseEnv({ ...pair, VAPID_PUBLIC_KEY: "not a key" })).toThrow(/VAPID_PUBLIC_KEY: must be the base64url public key/);
    expect(parseEnv({ VAPID_SUBJECT: "mailto:ops@example.com" }).VAPID_SUBJECT).toBe("mailto:ops@example.com");
    expect(() => parseEnv({ VAPID_SUBJECT: "http://example.com" })).toThrow(/VAPID_SUBJECT: must be a mailto: or https:\/\/ URL/);
  });

  it("refuses AUTH_MODE=sso without a provider to sign in with", () => {
    expect(() => parseEnv({ AUTH_MODE: "sso" })).toThrow(/AUTH_MODE: sso needs a provider/);
  });

  it("refuses APP_PASSWORD together with an account mode, with a clear message", () => {
    expect(parseEnv({ APP_PASSWORD: "shared secret" }).APP_PASSWORD).toBe("shared secret");
    expect(() => parseEnv({ APP_PASSWORD: "shared secret", AUTH_MODE: "open" })).toThrow(EnvError);
    expect(() => parseEnv({ APP_PASSWORD: "shared secret", AUTH_MODE: "invite" })).toThrow(
      /APP_PASSWORD: cannot be used with AUTH_MODE=invite/,
    );
  });

  it("reads MAX_TURNS, the old name of MAX_STEPS, when MAX_STEPS is unset", () => {
    expect(parseEnv({ MAX_TURNS: "7" }).MAX_STEPS).toBe(7);
    expect(parseEnv({ MAX_TURNS: "7", MAX_STEPS: "9" }).MAX_STEPS).toBe(9);
    expect(parseEnv({ MAX_TURNS: "7", MAX_STEPS: "" }).MAX_STEPS).toBe(7);
    expect(parseEnv({ RESULT_FOOTER: "false" }).RESULT_FOOTER).toBe(false);
  });

  it("treats empty strings as unset", () => {
    const env = parseEnv({ MODEL: "", OPENAI_API_KEY: "  ", PORT: "", MONGODB_URI: "" });
    expect(env.MODEL).toBeUndefined();
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.PORT).toBe(3000);
    expect(env.MONGODB_URI).toBeUndefined();
  });

  it("coerces numbers and booleans", () => {
    const env = parseEnv({ PORT: "8080", URL_FETCH_ENABLED: "true", MAX_SPAWN_DEPTH: "2" });
    expect(env.PORT).toBe(8080);
    expect(env.URL_FETCH_ENABLED).toBe(true);
    expect(env.MAX_SPAWN_DEPTH).toBe(2);
  });

  it.each([
    [{ PORT: "70000" }, "PORT"],
    [{ PORT: "abc" }, "PORT"],
    [{ MONGODB_URI: "postgres://x" }, "MONGODB_URI"],
    [{ OPENAI_BASE_URL: "not a url" }, "OPENAI_BASE_URL"],
    [{ SESSION_SECRET: "short" }, "SESSION_SECRET"],
    [{ URL_FETCH_ENABLED: "yes please" }, "URL_FETCH_ENABLED"],
  ])("rejects %o naming the variable", (source, name) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(name);
  });
});

describe("parseEnv: single sign-on (OpenID Connect)", () => {
  const sso = {
    OIDC_ISSUER: "https://id.example.com",
    OIDC_CLIENT_ID: "delegate",
    OIDC_CLIENT_SECRET: "s3cret",
    PUBLIC_URL: "https://chat.example.com",
  };

  it("reads a complete provider configuration, with the default button label", () => {
    const env = parseEnv(sso);
    expect(env).toMatchObject({
      OIDC_ISSUER: "https://id.example.com",
      OIDC_CLIENT_ID: "delegate",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_LABEL: "Sign in with SSO",
    });
    expect(parseEnv({ ...sso, OIDC_LABEL: "Sign in with Acme" }).OIDC_LABEL).toBe("Sign in with Acme");
    expect(parseEnv({ ...sso, OIDC_CLIENT_SECRET: "" }).OIDC_CLIENT_SECRET).toBeUndefined();
  });

  it("accepts plain http only for an issuer on this machine", () => {
    expect(parseEnv({ ...sso, OIDC_ISSUER: "http://127.0.0.1:9000" }).OIDC_ISSUER).toBe("http://127.0.0.1:9000");
    expect(parseEnv({ ...sso, OIDC_ISSUER: "http://localhost:9000/realms/x" }).OIDC_ISSUER).toBe("http://localhost:9000/realms/x");
    expect(() => parseEnv({ ...sso, OIDC_ISSUER: "http://id.example.com" })).toThrow(/OIDC_ISSUER: must be an https:\/\/ URL/);
    expect(() => parseEnv({ ...sso, OIDC_ISSUER: "http://127.0.0.1.evil.example" })).toThrow(/OIDC_ISSUER/);
  });

  it.each([
    [{ OIDC_ISSUER: sso.OIDC_ISSUER, PUBLIC_URL: sso.PUBLIC_URL }, /OIDC_CLIENT_ID: is required with OIDC_ISSUER/],
    [{ OIDC_CLIENT_ID: "delegate", PUBLIC_URL: sso.PUBLIC_URL }, /OIDC_ISSUER: is required with OIDC_CLIENT_ID/],
    [{ OIDC_CLIENT_SECRET: "s3cret", PUBLIC_URL: sso.PUBLIC_URL }, /OIDC_ISSUER: is required/],
    [{ OIDC_ISSUER: sso.OIDC_ISSUER, OIDC_CLIENT_ID: "delegate" }, /PUBLIC_URL: is required with OIDC_ISSUER.*\/api\/auth\/oidc\/callback/],
    [{ ...sso, OIDC_ISSUER: "not a url" }, /OIDC_ISSUER/],
  ])("refuses an incomplete provider configuration %o, naming what is missing", (source, message) => {
    expect(() => parseEnv(source)).toThrow(EnvError);
    expect(() => parseEnv(source)).toThrow(message);
  });
});
