import { z } from "zod";
import { CARD_LIMITS } from "./card-limits";

/**
 * Where a person signs in for a remote agent, as its card says (`securitySchemes`): an
 * OpenID Connect provider, or an OAuth 2 authorization server by its metadata or by the
 * authorization-code flow's two addresses. Both wire versions are read: 1.0 wraps each
 * scheme in its kind (`{ "openIdConnectSecurityScheme": { … } }`), 0.3 names the kind in
 * `type`; so is the shape the A2A TypeScript SDK's server writes, a oneof as
 * `{ "scheme": { "$case": kind, "value": … } }`. A card that declares none leaves the agent's endpoint to say it (RFC 9728
 * protected resource metadata), as an MCP server does.
 *
 * Pure and bounded like the rest of the card; the addresses are checked again when they are
 * fetched (https, no private address), since they come from whoever runs the agent.
 */
export type CardSignIn =
  /** The authorization server's issuer; its metadata is discovered there (RFC 8414 / OIDC discovery). */
  | { kind: "discover"; issuer: string; scopes: string[] }
  /** The flow's addresses as the card gives them, for a server that publishes no metadata. */
  | { kind: "flow"; authorizationUrl: string; tokenUrl: string; scopes: string[] };

const url = z.string().min(1).max(CARD_LIMITS.url);
const scopes = z.record(z.string().max(CARD_LIMITS.token), z.string().max(CARD_LIMITS.skillText)).optional();
/** `{ [field]: { $case: kind, value } }` (the TypeScript SDK's oneof) read as `{ [kind]: value }`; anything else as it is. */
function oneofAsJson(field: string) {
  return (raw: unknown): unknown => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
    const one = (raw as Record<string, unknown>)[field];
    if (typeof one !== "object" || one === null || typeof (one as { $case?: unknown }).$case !== "string") return raw;
    const { [field]: _oneof, ...rest } = raw as Record<string, unknown>;
    const { $case, value } = one as { $case: string; value: unknown };
    return { ...rest, [$case]: value };
  };
}

const codeFlow = z.object({ authorizationUrl: url, tokenUrl: url, scopes }).optional();
const flows = z.preprocess(oneofAsJson("flow"), z.object({ authorizationCode: codeFlow })).optional();
const oauth2 = z.object({ oauth2MetadataUrl: url.optional(), flows });
const openIdConnect = z.object({ openIdConnectUrl: url });
const scheme = z.preprocess(
  oneofAsJson("scheme"),
  z.object({
    type: z.string().max(CARD_LIMITS.token).optional(),
    oauth2SecurityScheme: oauth2.optional(),
    openIdConnectSecurityScheme: openIdConnect.optional(),
    // 0.3 puts the scheme's fields beside its `type`.
    oauth2MetadataUrl: url.optional(),
    flows,
    openIdConnectUrl: url.optional(),
  }),
);
const MAX_SCHEMES = 20;
export const securitySchemesSchema = z
  .record(z.string().max(CARD_LIMITS.name), scheme)
  .refine((all) => Object.keys(all).length <= MAX_SCHEMES, `at most ${MAX_SCHEMES} security schemes`);

const OIDC_SUFFIX = "/.well-known/openid-configuration";
const OAUTH_SUFFIX = "/.well-known/oauth-authorization-server";

/** A card that asks for a sign-in Delegate cannot do; `message` says why, for the person. */
export class CardSignInError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CardSignInError";
  }
}

/**
 * The sign-in a card's schemes ask for, in order of preference: OpenID Connect, OAuth 2
 * metadata, the authorization-code flow. Undefined when the card names none of them.
 * Throws CardSignInError for an address that is not an absolute http(s) URL, or discovery
 * addresses that do not end where discovery documents live (the issuer could not be told).
 */
export function cardSignIn(schemes: z.infer<typeof securitySchemesSchema> | undefined, cardUrl: string): CardSignIn | undefined {
  const all = Object.values(schemes ?? {});
  for (const one of all) {
    const oidc = one.openIdConnectSecurityScheme?.openIdConnectUrl ?? (one.type === "openIdConnect" ? one.openIdConnectUrl : undefined);
    // An OpenID Connect provider is asked for `openid`, which every such request carries.
    if (oidc) return { kind: "discover", issuer: issuerOf(oidc, OIDC_SUFFIX, cardUrl), scopes: ["openid"] };
  }
  for (const one of all) {
    const oauth = one.oauth2SecurityScheme ?? (one.type === "oauth2" ? one : undefined);
    if (!oauth) continue;
    const flow = oauth.flows?.authorizationCode;
    const flowScopes = Object.keys(flow?.scopes ?? {});
    if (oauth.oauth2MetadataUrl)
      return { kind: "discover", issuer: issuerOf(oauth.oauth2MetadataUrl, OAUTH_SUFFIX, cardUrl), scopes: flowScopes };
    if (flow) {
      return {
        kind: "flow",
        authorizationUrl: absolute(flow.authorizationUrl, cardUrl),
        tokenUrl: absolute(flow.tokenUrl, cardUrl),
        scopes: flowScopes,
      };
    }
  }
  return undefined;
}

/** The issuer a discovery address belongs to: `https://id.example.com/.well-known/openid-configuration` → `https://id.example.com`. */
function issuerOf(address: string, suffix: string, cardUrl: string): string {
  const at = new URL(absolute(address, cardUrl));
  // RFC 8414 puts the issuer's path after the well-known part; OIDC discovery, before it.
  if (at.pathname.endsWith(suffix)) return `${at.origin}${at.pathname.slice(0, -suffix.length)}`;
  if (at.pathname.startsWith(suffix)) return `${at.origin}${at.pathname.slice(suffix.length)}`;
  throw new CardSignInError(`its sign-in address ${clip(at.href)} is not a discovery document (${suffix})`);
}

function absolute(address: string, base: string): string {
  const parsed = URL.parse(address, base);
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new CardSignInError(`its sign-in address "${clip(address)}" is not an http(s) URL`);
  }
  if (parsed.username || parsed.password) throw new CardSignInError("its sign-in address carries a user name or password");
  return parsed.href;
}

function clip(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 79)}…`;
}
