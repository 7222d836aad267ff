import { z } from "zod";

/**
 * How Delegate signs a person in to a server that acts for them (an MCP server, a remote
 * agent): `true` registers Delegate with the server's authorization server dynamically;
 * an object names a client the operator registered there (its secret read from the
 * variable `clientSecretEnv` names). docs/mcp-auth.md and docs/remote-agents.md.
 */
export const oauthSettingSchema = z.union([
  z.literal(true),
  z
    .object({
      clientId: z.string().min(1),
      clientSecretEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, "must be an environment variable's name")
        .optional(),
      scopes: z.array(z.string().min(1)).optional(),
    })
    .strict(),
]);

export type OAuthSetting = z.infer<typeof oauthSettingSchema>;
