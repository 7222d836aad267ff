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
/** "I am writing a prompt": a collaborator's composer sends it every few seconds while they type. */
export const memberTypingSchema = z.strictObject({ sessionId: id });
export type MemberTyping = z.infer<typeof memberTypingSchema>;
/** How long a "… is typing" lasts without another one: the composer repeats it more often than this. */
export const TYPING_STALE_MS = 5_000;
/** The most often a composer says it again. */
export const TYPING_EVERY_MS = 2_000;
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
  /** The asker's own account id (their own typing is not shown to them). */
  me: string;
  people: ChatPerson[];
}

/** The server's word that the asker may no longer open a chat (removed from it, or it was deleted). */
export interface AccessLost {
  sessionId: string;
}

/** Who has the chat open now, on any process, by name (accounts only). */
export interface MembersPresence {
  sessionId: string;
  viewing: { accountId: string; name: string }[];
}

/** Someone in the chat is writing a prompt. */
export interface MemberTypingNotice {
  sessionId: string;
  accountId: string;
  name: string;
}
