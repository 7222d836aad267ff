import type { ZodType } from "zod";
import type { AckCallback } from "./ack";
import {
  emptySchema,
  sessionCreateSchema,
  sessionJoinSchema,
  sessionOlderSchema,
  sessionRefSchema,
  sessionRenameSchema,
  subagentKillSchema,
  subagentRetrySchema,
  subagentSteerSchema,
  toolDecideSchema,
  toolAnswerSchema,
  turnCancelSchema,
  turnSendSchema,
  type EmptyInput,
  type SessionCreate,
  type SessionJoin,
  type SessionOlder,
  type SessionRef,
  type SessionRename,
  type SubagentKill,
  type SubagentRetry,
  type SubagentSteer,
  type ToolDecide,
  type ToolAnswer,
  type TurnCancel,
  type TurnSend,
  chatSettingsQuerySchema,
  type ChatSettingsQuery,
  turnEditSchema,
  turnRegenerateSchema,
  turnRefSchema,
  type TurnEdit,
  type TurnRegenerate,
  type TurnRef,
} from "./commands";
import { chatSettingsInputSchema, type ChatSettings, type ChatSettingsInput, type ModelCatalog } from "./catalog";
import {
  sessionPageSchema,
  sessionSearchSchema,
  type SearchResults,
  type SessionPage,
  type SessionPageInput,
  type SessionSearch,
} from "./search";
import {
  agentChatSchema,
  agentCreateSchema,
  agentDuplicateSchema,
  agentGetSchema,
  agentListSchema,
  agentUpdateSchema,
  type AgentChatInput,
  type AgentCreate,
  type AgentDetail,
  type AgentDuplicate,
  type AgentGet,
  type AgentList,
  type AgentListInput,
  type AgentSummary,
  type AgentUpdate,
} from "./agents";
import type { SessionEvent, SessionSnapshot } from "./events";
import type { ChatTurn, SessionSummary } from "./turn";
import type { Budget } from "./budget";
import {
  memberAddSchema,
  memberListSchema,
  memberRemoveSchema,
  memberRoleChangeSchema,
  memberTypingSchema,
  type AccessLost,
  type MemberTyping,
  type MemberTypingNotice,
  type MembersPresence,
  type ChatMembers,
  type MemberAdd,
  type MemberList,
  type MemberRemove,
  type MemberRoleChange,
} from "./members";

/**
 * Join answers with a snapshot (fresh load, or a gap the server cannot fill from
 * memory) or promises a replay: missed events follow, then `replay:complete`.
 * A snapshot holds the newest turns only (`TURN_PAGE_SIZE`, the running one always among
 * them); `older` is the cursor for `session:older` while older turns exist.
 */
export type JoinResult =
  ({ mode: "snapshot"; older: string | null } & SessionSnapshot) | { mode: "replay"; sessionId: string; seq: number };

/** A page of older turns, oldest first; `older` is the cursor for the page before it, null at the first turn. */
export interface TurnPage {
  sessionId: string;
  turns: ChatTurn[];
  older: string | null;
  /** As in a snapshot: the alternatives of the page's turns that have some. */
  siblings?: Record<string, string[]>;
}

/** What the browser shows about this server: which model answers, and whether it is the demo. */
export interface AppInfo {
  modelLabel: string;
  demo: boolean;
  /** APP_PASSWORD is set: the UI offers a way to log out. */
  passwordProtected: boolean;
  /** The master's context budget in tokens (CONTEXT_TOKENS), for the header's context meter. */
  contextTokens?: number;
  /** The MCP tool servers of MCP_CONFIG_FILE, their state and tools; absent without one. */
  mcpServers?: McpServerInfo[];
  /** The remote agents of SUBAGENTS_FILE each person signs in to (`a2a.oauth`); absent when there are none. */
  remoteAgents?: RemoteSignInInfo[];
  /** ATTACHMENT_MAX_BYTES: the composer refuses a larger file before uploading it, in the server's words. */
  attachmentMaxBytes?: number;
  /** A turn's default budget (TURN_BUDGET_*), which the composer's budget field shows; absent: none. */
  turnBudget?: Budget;
  /** A2A_SERVER_ENABLED: other agents may call this one with an API token (the sidebar links the tokens page). */
  a2aServer?: boolean;
  /** Chats may have members (the account modes): the header offers the members dialog. */
  members?: boolean;
}

/**
 * One MCP tool server as the header shows it. `failed` and `restarting` carry the last
 * error; both retry with backoff. `needs_sign_in`: a server each person signs in to
 * (`signIn: true`) that this person has not signed in to, or whose sign-in expired.
 */
export interface McpServerInfo {
  name: string;
  status: "connecting" | "connected" | "failed" | "restarting" | "disabled" | "needs_sign_in";
  /** Each person signs in to this server (OAuth); its tools are theirs alone. */
  signIn?: boolean;
  error?: string;
  /** Tools as agents see them (`server.tool`). */
  tools: { name: string; description: string }[];
}

/** A remote agent each person signs in to, as the tool servers menu lists it. */
export interface RemoteSignInInfo {
  /** The definition's name, which the master calls it by. */
  name: string;
  /** Its card's host, which a person recognises. */
  host: string;
  /** This person holds a sign-in (it may still turn out expired: the agent's refusal says so). */
  signedIn: boolean;
}

export interface ClientToServerEvents {
  "app:info": (input: EmptyInput, ack: AckCallback<AppInfo>) => void;
  "session:list": (input: EmptyInput, ack: AckCallback<SessionSummary[]>) => void;
  "session:create": (input: SessionCreate, ack: AckCallback<SessionSummary>) => void;
  "session:rename": (input: SessionRename, ack: AckCallback<SessionSummary>) => void;
  "session:delete": (input: SessionRef, ack: AckCallback<{ sessionId: string }>) => void;
  "session:join": (input: SessionJoin, ack: AckCallback<JoinResult>) => void;
  "session:leave": (input: SessionRef, ack: AckCallback<{ sessionId: string }>) => void;
  "session:older": (input: SessionOlder, ack: AckCallback<TurnPage>) => void;
  "turn:send": (input: TurnSend, ack: AckCallback<{ turnId: string }>) => void;
  "turn:cancel": (input: TurnCancel, ack: AckCallback<{ turnId: string }>) => void;
  "subagent:steer": (input: SubagentSteer, ack: AckCallback<{ runId: string }>) => void;
  "subagent:kill": (input: SubagentKill, ack: AckCallback<{ runId: string }>) => void;
  "tool:decide": (input: ToolDecide, ack: AckCallback<{ callId: string }>) => void;
  /** A person's answer to a question a tool call asks (see lib/contracts/input.ts). */
  "tool:answer": (input: ToolAnswer, ack: AckCallback<{ callId: string }>) => void;
  "subagent:retry": (input: SubagentRetry, ack: AckCallback<RetryStarted>) => void;
  /** The sidebar's chats a page at a time, newest activity first. */
  "session:page": (input: SessionPageInput, ack: AckCallback<SessionPage>) => void;
  /** Full-text search over one's own chats. */
  "session:search": (input: SessionSearch, ack: AckCallback<SearchResults>) => void;
  /** The models a person may pick for a chat, from every configured endpoint. */
  "model:list": (input: EmptyInput, ack: AckCallback<ModelCatalog>) => void;
  "chat:settings": (input: ChatSettingsQuery, ack: AckCallback<ChatSettings>) => void;
  /** Sets a chat's model (and the person's default) or its instructions. */
  "chat:configure": (input: ChatSettingsInput, ack: AckCallback<ChatSettings>) => void;
  /** Branches: an edited prompt or a regenerated answer starts a turn beside the old one. */
  "turn:edit": (input: TurnEdit, ack: AckCallback<{ turnId: string }>) => void;
  "turn:regenerate": (input: TurnRegenerate, ack: AckCallback<{ turnId: string }>) => void;
  /** Shows the branch holding the turn: answered with a snapshot, as a join is. */
  "session:branch": (input: TurnRef, ack: AckCallback<JoinResult>) => void;
  /** A new chat with the turns up to this one. */
  "session:fork": (input: TurnRef, ack: AckCallback<SessionSummary>) => void;
  /** Subagent definitions: the person's own, the shared ones and the operator's (with a chat, those it turned off). */
  "agent:list": (input: AgentListInput, ack: AckCallback<AgentList>) => void;
  /** One definition with every version. */
  "agent:get": (input: AgentGet, ack: AckCallback<AgentDetail>) => void;
  "agent:create": (input: AgentCreate, ack: AckCallback<AgentSummary>) => void;
  /** Writes the definition's next version; the older ones stay, read-only. */
  "agent:update": (input: AgentUpdate, ack: AckCallback<AgentSummary>) => void;
  "agent:duplicate": (input: AgentDuplicate, ack: AckCallback<AgentSummary>) => void;
  /** New turns stop offering it; the panels of runs that ran it keep it. */
  "agent:delete": (input: AgentGet, ack: AckCallback<{ id: string }>) => void;
  /** Turns a definition on or off for one chat. */
  "chat:agents": (input: AgentChatInput, ack: AckCallback<{ off: string[] }>) => void;
  /** A chat's owner and members with their roles, and the asker's own role (docs/members.md). */
  "member:list": (input: MemberList, ack: AckCallback<ChatMembers>) => void;
  /** The owner adds an account by email (or changes the role of one already there). */
  "member:add": (input: MemberAdd, ack: AckCallback<ChatMembers>) => void;
  "member:role": (input: MemberRoleChange, ack: AckCallback<ChatMembers>) => void;
  /** The owner removes a member: cut off at once, on every process. */
  "member:remove": (input: MemberRemove, ack: AckCallback<ChatMembers>) => void;
  /** The sender is writing a prompt (collaborators and the owner; throttled by the composer). */
  "member:typing": (input: MemberTyping, ack: AckCallback<{ sessionId: string }>) => void;
}

/**
 * Where a retry runs: inside the running turn (its result replaces the failed one as the
 * answer the parent reads) or in a new turn whose master receives the new result.
 */
export interface RetryStarted {
  mode: "in_turn" | "new_turn";
  turnId: string;
  /** The new run's id, when it is known at once (in_turn); a new turn's run starts with it. */
  runId?: string;
}

export const commandSchemas = {
  "app:info": emptySchema,
  "session:list": emptySchema,
  "session:create": sessionCreateSchema,
  "session:rename": sessionRenameSchema,
  "session:delete": sessionRefSchema,
  "session:join": sessionJoinSchema,
  "session:leave": sessionRefSchema,
  "session:older": sessionOlderSchema,
  "turn:send": turnSendSchema,
  "turn:cancel": turnCancelSchema,
  "subagent:steer": subagentSteerSchema,
  "subagent:kill": subagentKillSchema,
  "tool:decide": toolDecideSchema,
  "tool:answer": toolAnswerSchema,
  "subagent:retry": subagentRetrySchema,
  "session:page": sessionPageSchema,
  "session:search": sessionSearchSchema,
  "model:list": emptySchema,
  "chat:settings": chatSettingsQuerySchema,
  "chat:configure": chatSettingsInputSchema,
  "turn:edit": turnEditSchema,
  "turn:regenerate": turnRegenerateSchema,
  "session:branch": turnRefSchema,
  "session:fork": turnRefSchema,
  "agent:list": agentListSchema,
  "agent:get": agentGetSchema,
  "agent:create": agentCreateSchema,
  "agent:update": agentUpdateSchema,
  "agent:duplicate": agentDuplicateSchema,
  "agent:delete": agentGetSchema,
  "chat:agents": agentChatSchema,
  "member:list": memberListSchema,
  "member:add": memberAddSchema,
  "member:role": memberRoleChangeSchema,
  "member:remove": memberRemoveSchema,
  "member:typing": memberTypingSchema,
} satisfies Record<keyof ClientToServerEvents, ZodType>;

/**
 * Every agent event travels on one channel as the typed union; the subagent event
 * names (`subagent_started`, `subagent_data`, …) are its `type` field.
 */
export interface ServerToClientEvents {
  "agent:event": (event: SessionEvent) => void;
  "replay:complete": (info: { sessionId: string; seq: number }) => void;
  /** The first page of one's chats (SESSION_PAGE_SIZE, newest activity first), not the whole list. */
  "sessions:changed": (sessions: SessionSummary[]) => void;
  /** The asker may no longer open this chat (removed from its members): the page closes its view. */
  "session:access-lost": (info: AccessLost) => void;
  /** The chat's members or their roles changed: what each may do is read again. */
  "members:changed": (info: { sessionId: string }) => void;
  /** Someone in the chat is writing a prompt; stale after TYPING_STALE_MS without another. */
  "member:typing": (notice: MemberTypingNotice) => void;
  /** Who has the chat open now: sent to its room when someone opens or leaves it. */
  "members:presence": (presence: MembersPresence) => void;
}

export type InterServerEvents = Record<string, never>;

export interface SocketData {
  userId: string;
  /** The APP_PASSWORD login session the socket was opened under; logging it out disconnects the socket. */
  authSession?: string;
  /** The account sign-in session (its public id) the socket was opened under; ending it disconnects the socket. */
  signInSessionId?: string;
}

/**
 * The socket handshake's refusal when no sign-in is valid (accounts, or APP_PASSWORD): the
 * browser reads it as "signed out" and offers to sign in rather than reconnecting forever.
 */
export const HANDSHAKE_SIGNED_OUT = {
  accounts: "unauthorized: sign in first",
  password: "unauthorized: log in first",
} as const;
