"use client";

import { createContext, useContext, type ReactNode } from "react";
import type { Ack, InputContent, RetryStarted } from "@/lib/contracts";

/**
 * What a panel can do besides render: steer or kill its run, fetch a full tool result.
 * Provided once per open session so memoized panels need no callback props.
 */
export interface PanelActions {
  sessionId: string;
  steer: (runId: string, message: string) => Promise<Ack<{ runId: string }>>;
  kill: (runId: string) => Promise<Ack<{ runId: string }>>;
  /** A decision on a call waiting for approval (`runId` null = the master's call). */
  decide?: (callId: string, runId: string | null, decision: "approve" | "deny", reason?: string) => Promise<Ack<{ callId: string }>>;
  /** An answer to a question a running call asks (`runId` null = the master's call); `content` only to accept. */
  answer?: (callId: string, runId: string | null, action: "accept" | "decline", content?: InputContent) => Promise<Ack<{ callId: string }>>;
  /** Runs a failed, killed or timed-out subagent again; `task` replaces its task. */
  retry?: (runId: string, task?: string) => Promise<Ack<RetryStarted>>;
  /** A shared chat's viewer: panels show no steer or kill (and get no retry, decide or answer). */
  readOnly?: boolean;
  /** Where this chat's reads live (full tool output, model calls); default `/api/sessions/<id>`. */
  apiBase?: string;
  /** False hides the context inspector (a share link without it). */
  inspector?: boolean;
}

/** The base of a chat's HTTP reads: the owner's `/api/sessions/<id>`, or a share link's. */
export function sessionApiBase(sessionId: string, apiBase?: string): string {
  return apiBase ?? `/api/sessions/${encodeURIComponent(sessionId)}`;
}

const PanelActionsContext = createContext<PanelActions | null>(null);

export function PanelActionsProvider({ value, children }: { value: PanelActions; children: ReactNode }) {
  return <PanelActionsContext.Provider value={value}>{children}</PanelActionsContext.Provider>;
}

/** Null outside a session (e.g. a static preview): panels then hide their controls. */
export function usePanelActions(): PanelActions | null {
  return useContext(PanelActionsContext);
}

const TurnIdContext = createContext<string | undefined>(undefined);

/** The turn a subtree of tool calls belongs to: with the owning run, it names a call uniquely. */
export function TurnIdProvider({ turnId, children }: { turnId: string; children: ReactNode }) {
  return <TurnIdContext.Provider value={turnId}>{children}</TurnIdContext.Provider>;
}

export function useTurnId(): string | undefined {
  return useContext(TurnIdContext);
}

const AgentNameContext = createContext<string | null>(null);

/** Who makes the calls in a subtree: a subagent's name, or null for the master (approval cards say who asked). */
export function AgentNameProvider({ name, children }: { name: string; children: ReactNode }) {
  return <AgentNameContext.Provider value={name}>{children}</AgentNameContext.Provider>;
}

export function useAgentName(): string | null {
  return useContext(AgentNameContext);
}
