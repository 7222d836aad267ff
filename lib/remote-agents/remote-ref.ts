import { z } from "zod";
import { oauthSettingSchema } from "@/lib/oauth/setting";

/**
 * A subagent that runs elsewhere: a remote agent that speaks the Agent2Agent protocol
 * (A2A), named by the URL of its agent card. Its token is named by an environment
 * variable, never written here, so a definitions file can be committed.
 */
export const remoteAgentRefSchema = z
  .strictObject({
    cardUrl: z.url({
      protocol: /^https?$/,
      error: 'must be the http(s) URL of the agent card, e.g. "https://agents.example.com/.well-known/agent-card.json"',
    }),
    bearerTokenEnv: z
      .string()
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]*$/,
        'must be the NAME of an environment variable that holds the token (e.g. "DATA_AGENT_TOKEN"), not the token itself',
      )
      .optional(),
    /**
     * Each person signs in to the agent (OAuth, where its card or endpoint says), and its
     * runs carry the token of the chat's owner: `true` registers Delegate dynamically, an
     * object names the operator's client (as an MCP server's `oauth`).
     */
    oauth: oauthSettingSchema.optional(),
    /** Steering sends the remote a follow-up message in the same task; off unless the remote is known to take them. */
    followUps: z.boolean().default(false),
  })
  .refine((ref) => !(ref.oauth && ref.bearerTokenEnv), {
    message: "either bearerTokenEnv (one token for everyone) or oauth (each person signs in), not both",
    path: ["oauth"],
  });
export type RemoteAgentRef = z.infer<typeof remoteAgentRefSchema>;

/** What a remote agent's panel shows where a local run shows its model. */
export function remoteAgentLabel(ref: Pick<RemoteAgentRef, "cardUrl">): string {
  return `A2A · ${new URL(ref.cardUrl).host}`;
}

/** What a remote agent's definition holds where a local one has its own words: replaced by the card's as a turn starts. */
export const REMOTE_PLACEHOLDERS = {
  description: "A remote agent (A2A).",
  systemPrompt: "(runs on a remote agent)",
} as const;
