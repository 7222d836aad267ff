import {
  AppError,
  type ChatMembers,
  type MemberAdd,
  type MemberRemove,
  type MemberRoleChange,
  type MemberTypingNotice,
} from "@/lib/contracts";
import type { ChatGate } from "./chat-gate";
import type { MemberStore } from "./member-store";

export interface MemberServiceDeps {
  store: MemberStore;
  gate: ChatGate;
  /** Accounts exist (`AUTH_MODE` is not `single`): without them nobody can be added. */
  accounts: boolean;
  /** Every tab of `accountId` refreshes its session list (a chat appeared, left, or changed role). */
  onSessionsChanged(accountId: string): void;
  /** The chat's people changed: its viewers refresh what they may do. */
  onMembersChanged(sessionId: string): void;
  /** `accountId` may no longer open the chat: their sockets leave its room, on every process, and are told. */
  onRemoved(sessionId: string, accountId: string): void;
  /** Tells the chat's viewers that `accountId` is writing a prompt. */
  onTyping(notice: MemberTypingNotice): void;
}

/**
 * A chat's members: the owner adds accounts by email with a role, changes a role and
 * removes a member; everyone in the chat reads the list. Both doors call this, and every
 * check is the chat's gate (lib/members/can.ts).
 */
export class MemberService {
  constructor(private readonly deps: MemberServiceDeps) {}

  /** Whether anyone can be added (the account modes). */
  get enabled(): boolean {
    return this.deps.accounts;
  }

  async list(userId: string, sessionId: string): Promise<ChatMembers> {
    const { role } = await this.deps.gate(userId, sessionId, "read");
    return { sessionId, you: role, me: userId, people: await this.deps.store.people(sessionId) };
  }

  /** "… is typing": only someone who may send a prompt says so. */
  async typing(userId: string, sessionId: string): Promise<{ sessionId: string }> {
    await this.deps.gate(userId, sessionId, "send");
    const name = (await this.deps.store.names([userId])).get(userId);
    // Without an account (single mode) there is no name, and nobody else to tell.
    if (name !== undefined) this.deps.onTyping({ sessionId, accountId: userId, name });
    return { sessionId };
  }

  async add(userId: string, input: MemberAdd): Promise<ChatMembers> {
    this.needAccounts();
    await this.deps.gate(userId, input.sessionId, "members");
    const accountId = await this.deps.store.accountByEmail(input.email);
    await this.deps.store.add(userId, input.sessionId, accountId, input.role);
    this.changed(input.sessionId, accountId);
    return this.list(userId, input.sessionId);
  }

  async setRole(userId: string, input: MemberRoleChange): Promise<ChatMembers> {
    this.needAccounts();
    await this.deps.gate(userId, input.sessionId, "members");
    await this.deps.store.setRole(userId, input.sessionId, input.accountId, input.role);
    this.changed(input.sessionId, input.accountId);
    return this.list(userId, input.sessionId);
  }

  async remove(userId: string, input: MemberRemove): Promise<ChatMembers> {
    this.needAccounts();
    await this.deps.gate(userId, input.sessionId, "members");
    await this.deps.store.remove(userId, input.sessionId, input.accountId);
    this.deps.onRemoved(input.sessionId, input.accountId);
    this.changed(input.sessionId, input.accountId);
    return this.list(userId, input.sessionId);
  }

  /** The accounts that may act on the chat's turns: its owner and collaborators (a notification's audience). */
  peopleWhoCanAct(sessionId: string): Promise<string[]> {
    return this.deps.store.ids(sessionId, "act");
  }

  /** Every account that may open the chat. */
  peopleWhoCanSee(sessionId: string): Promise<string[]> {
    return this.deps.store.ids(sessionId, "see");
  }

  private changed(sessionId: string, accountId: string): void {
    this.deps.onMembersChanged(sessionId);
    this.deps.onSessionsChanged(accountId);
  }

  private needAccounts(): void {
    if (!this.deps.accounts) throw new AppError("bad_request", "Chats have members only with accounts (AUTH_MODE open, invite or sso).");
  }
}
