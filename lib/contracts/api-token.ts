import { z } from "zod";

/**
 * API tokens: a person's bearer secrets for callers that are not a browser (another
 * agent over A2A). The secret is shown once, when it is made; the server keeps only its
 * SHA-256, so a list shows names and dates, never a secret.
 */
export const API_TOKEN_SCOPES = ["a2a"] as const;
export const apiTokenScopeSchema = z.enum(API_TOKEN_SCOPES);
export type ApiTokenScope = z.infer<typeof apiTokenScopeSchema>;

/** Every secret starts with this, so a leaked one is recognisable in a log or a scanner. */
export const API_TOKEN_PREFIX = "dlg_";
/** Live tokens one person may hold; revoked ones do not count. */
export const MAX_API_TOKENS = 50;

export const apiTokenCreateSchema = z
  .object({
    name: z.string().trim().min(1, "give the token a name").max(100, "is longer than 100 characters"),
    scope: apiTokenScopeSchema.default("a2a"),
  })
  .strict();
export type ApiTokenCreate = z.infer<typeof apiTokenCreateSchema>;

export const apiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: apiTokenScopeSchema,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** What creating a token answers: the token, and its secret this once. */
export const apiTokenCreatedSchema = z.object({ token: apiTokenSchema, secret: z.string() });
export type ApiTokenCreated = z.infer<typeof apiTokenCreatedSchema>;

export const API_TOKEN_ROUTES = {
  list: "/api/tokens",
  revoke: (id: string) => `/api/tokens/${encodeURIComponent(id)}/revoke`,
} as const;
