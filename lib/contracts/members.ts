import { z } from "zod";

/**
 * A chat's people (docs/members.md): its owner, and the accounts the owner added with a
 * role. A `viewer` sees everything live and acts on nothing; a `collaborator` also sends
 * prompts and acts on the running turn; only the owner manages the chat.
 */
export const MEMBER_ROLES = ["viewer", "collaborator"] as const;
export const memberRoleSchema = z.enum(MEMBER_ROLES);
export type MemberRole = z.infer<typeof memberRoleSchema>;
/** What a person is to a chat they may open. */
export type ChatRole = MemberRole | "owner";

/** The most members one chat may have: each removal and each event reaches all of them. */
export const MAX_MEMBERS = 50;

const id = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "must be an id");

export const memberListSchema = z.strictObject({ sessionId: id });
export const memberAddSchema = z.strictObject({
  sessionId: id,
  email: z.string().trim().toLowerCase().min(3).max(320).email("must be an email address"),
  role: memberRoleSchema,
});
export const memberRoleChangeSchema = z.strictObject({ sessionId: id, accountId: id, role: memberRoleSchema });
export const memberRemoveSchema = z.strictObject({ sessionId: id, accountId: id });
export type MemberList = z.infer<typeof memberListSchema>;
export type MemberAdd = z.infer<typeof memberAddSchema>;
export type MemberRoleChange = z.infer<typeof memberRoleChangeSchema>;
export type MemberRemove = z.infer<typeof memberRemoveSchema>;

/** One person of a chat as the members dialog lists them; `name` is what the app shows for them (their email). */
export interface ChatPerson {
  accountId: string;
  name: string;
  role: ChatRole;
}

/** A chat's owner first, then its members in the order they were added; `you` is the asker's role. */
export interface ChatMembers {
  sessionId: string;
  you: ChatRole;
  people: ChatPerson[];
}

/** The server's word that the asker may no longer open a chat (removed from it, or it was deleted). */
export interface AccessLost {
  sessionId: string;
}
