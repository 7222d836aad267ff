import { describe, expect, it } from "vitest";
import { checkAgentCard } from "./card";
import { cardSignIn, CardSignInError, securitySchemesSchema } from "./card-sign-in";

const CARD_URL = "https://agents.example.com/.well-known/agent-card.json";
const read = (schemes: unknown) => cardSignIn(securitySchemesSchema.parse(schemes), CARD_URL);
const flow = {
  authorizationUrl: "https://id.example.com/authorize",
  tokenUrl: "https://id.example.com/token",
  scopes: { "sales.read": "Read sales" },
};

describe("where a card says a person signs in", () => {
  it.each([
    [
      "an OpenID Connect scheme (1.0)",
      { people: { openIdConnectSecurityScheme: { openIdConnectUrl: "https://id.example.com/.well-known/openid-configuration" } } },
      { kind: "discover", issuer: "https://id.example.com", scopes: ["openid"] },
    ],
    [
      "an OpenID Connect scheme (0.3), its issuer with a path",
      { people: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com/realms/acme/.well-known/openid-configuration" } },
      { kind: "discover", issuer: "https://id.example.com/realms/acme", scopes: ["openid"] },
    ],
    [
      "OAuth 2 metadata (RFC 8414 puts the issuer's path after the well-known part)",
      { people: { oauth2SecurityScheme: { oauth2MetadataUrl: "https://as.example.com/.well-known/oauth-authorization-server/tenant" } } },
      { kind: "discover", issuer: "https://as.example.com/tenant", scopes: [] },
    ],
    [
      "the authorization-code flow alone (0.3), with its scopes",
      { people: { type: "oauth2", flows: { authorizationCode: flow } } },
      { kind: "flow", authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl, scopes: ["sales.read"] },
    ],
    [
      "the TypeScript SDK's shape of a oneof",
      { people: { scheme: { $case: "oauth2SecurityScheme", value: { flows: { flow: { $case: "authorizationCode", value: flow } } } } } },
      { kind: "flow", authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl, scopes: ["sales.read"] },
    ],
    [
      "OpenID Connect before OAuth 2, whatever their order",
      {
        a: { type: "oauth2", flows: { authorizationCode: flow } },
        b: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com/.well-known/openid-configuration" },
      },
      { kind: "discover", issuer: "https://id.example.com", scopes: ["openid"] },
    ],
  ])("%s", (_name, schemes, expected) => {
    expect(read(schemes)).toEqual(expected);
  });

  it("says nothing for a card with no sign-in scheme (an API key, a bearer, none): the endpoint's metadata is asked then", () => {
    expect(read({})).toBeUndefined();
    expect(
      read({ key: { apiKeySecurityScheme: { location: "header", name: "X-Key" } }, bearer: { type: "http", scheme: "bearer" } }),
    ).toBeUndefined();
    expect(cardSignIn(undefined, CARD_URL)).toBeUndefined();
  });

  it.each([
    [{ p: { type: "openIdConnect", openIdConnectUrl: "javascript:alert(1)" } }, /is not an http\(s\) URL/],
    [{ p: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com/login" } }, /is not a discovery document/],
    [
      { p: { type: "openIdConnect", openIdConnectUrl: "https://user:pw@id.example.com/.well-known/openid-configuration" } },
      /user name or password/,
    ],
    [{ p: { type: "oauth2", flows: { authorizationCode: { ...flow, tokenUrl: "file:///etc/passwd" } } } }, /not an http\(s\) URL/],
  ])("refuses a sign-in address a person could not be sent to: %j", (schemes, message) => {
    expect(() => read(schemes)).toThrow(CardSignInError);
    expect(() => read(schemes)).toThrow(message);
  });

  it("refuses a card whose schemes are past the bounds, whole", () => {
    const base = { name: "Agent", url: "https://agents.example.com/a2a" };
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`s${i}`, { type: "http" }]));
    expect(() => checkAgentCard({ ...base, securitySchemes: many })).toThrow(/at most 20 security schemes/);
    const long = { p: { type: "openIdConnect", openIdConnectUrl: `https://id.example.com/${"a".repeat(3000)}` } };
    expect(() => checkAgentCard({ ...base, securitySchemes: long })).toThrow(/securitySchemes/);
    expect(checkAgentCard({ ...base, securitySchemes: { p: { type: "http", scheme: "bearer" } } }).name).toBe("Agent");
  });
});
