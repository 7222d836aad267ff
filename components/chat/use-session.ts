"use client";

import { useCallback, useMemo, useState } from "react";
import type { Ack, Budget, InputContent, RetryStarted, SessionSummary } from "@/lib/contracts";
import { isBusy, type JoinSnapshot, type SessionState } from "@/lib/chat/session-state";
import { getSocket, request } from "@/components/realtime/socket";
import { newClientId } from "./client-id";
import { useSessionFeed, type FeedChannel, type OlderTurns, type SessionProblem } from "./use-session-feed";

export type { OlderTurns, SessionProblem } from "./use-session-feed";

export interface UseSession {
  state: SessionState;
  older: OlderTurns;
  /** False until the first join answered (snapshot or replay). */
  loaded: boolean;
  /** Why joining failed (e.g. not_found); the view replaces the chat with it. */
  joinError: SessionProblem | null;
  busy: boolean;
  runningTurnId: string | null;
  /** `model`: the key the picker shows (the chat is set to it when it differs). */
  /** `attachments`: ids of this chat's attachments the prompt names. */
  /** True when accepted; "busy" when refused because a turn runs (the prompt is withdrawn, so it can be queued). */
  send: (text: string, model?: string, attachments?: readonly string[], budget?: Budget) => Promise<boolean | "busy">;
  cancel: () => Promise<Ack<{ turnId: string }> | null>;
  steer: (runId: string, message: string) => Promise<Ack<{ runId: string }>>;
  kill: (runId: string) => Promise<Ack<{ runId: string }>>;
  decide: (callId: string, runId: string | null, decision: "approve" | "deny", reason?: string) => Promise<Ack<{ callId: string }>>;
  /** An answer to a question a running call asks (see lib/contracts/input.ts). */
  answer: (callId: string, runId: string | null, action: "accept" | "decline", content?: InputContent) => Promise<Ack<{ callId: string }>>;
  retry: (runId: string, task?: string) => Promise<Ack<RetryStarted>>;
  /** Branches: a turn beside `turnId` with an edited prompt, or (regenerate) its prompt again. */
  edit: (turnId: string, text: string, model?: string) => Promise<Ack<{ turnId: string }>>;
  regenerate: (turnId: string, model?: string) => Promise<Ack<{ turnId: string }>>;
  /** Shows the branch holding `turnId`. */
  switchBranch: (turnId: string) => Promise<Ack<unknown>>;
  fork: (turnId: string) => Promise<Ack<SessionSummary>>;
}

/**
 * One open session over the shared socket: the live feed (see useSessionFeed) on the
 * `session:*` commands, and the owner's commands (send, cancel, steer, kill, decide, answer, retry).
 * `initial`: the join the page's HTML was rendered from (the feed resumes from it).
 */
export function useSession(sessionId: string, initial?: JoinSnapshot | null): UseSession {
  const [joinError, setJoinError] = useState<SessionProblem | null>(null);
  const channel = useMemo<FeedChannel>(
    () => ({
      open: (on) => {
        const socket = getSocket();
        socket.on("agent:event", on.event);
        socket.on("replay:complete", on.replayComplete);
        socket.on("connect", on.connect);
        return () => {
          socket.off("agent:event", on.event);
          socket.off("replay:complete", on.replayComplete);
          socket.off("connect", on.connect);
          if (socket.connected) void request(socket, "session:leave", { sessionId });
        };
      },
      connected: () => getSocket().connected,
      join: (lastSeq) => request(getSocket(), "session:join", lastSeq === undefined ? { sessionId } : { sessionId, lastSeq }),
      older: (before) => request(getSocket(), "session:older", { sessionId, before }),
      joined: () => setJoinError(null),
      joinFailed: (problem, loaded) => {
        // A timeout while already showing the session is retried by the next reconnect.
        if (problem.code !== "unavailable" || !loaded) setJoinError(problem);
      },
    }),
    [sessionId],
  );
  const { state, dispatch, older, loaded } = useSessionFeed(channel, sessionId, initial);

  const send = useCallback(
    async (text: string, model?: string, attachments?: readonly string[], budget?: Budget) => {
      const clientId = newClientId();
      dispatch({ type: "send", clientId, prompt: text, createdAt: new Date().toISOString() });
      const ack = await request(getSocket(), "turn:send", {
        sessionId,
        text,
        ...(model ? { model } : {}),
        ...(attachments?.length ? { attachments: [...attachments] } : {}),
        ...(budget ? { budget } : {}),
      });
      if (ack.ok) dispatch({ type: "send:acked", clientId, turnId: ack.data.turnId });
      else if (ack.code === "busy") dispatch({ type: "send:withdrawn", clientId });
      else dispatch({ type: "send:failed", clientId, error: `Not sent: ${ack.message}` });
      if (!ack.ok && ack.code === "busy") return "busy";
      return ack.ok;
    },
    [sessionId, dispatch],
  );

  const runningTurnId = useMemo(() => {
    for (let i = state.turns.length - 1; i >= 0; i--) {
      const turn = state.turns[i]!;
      if (turn.status === "running") return turn.turnId;
    }
    return null;
  }, [state.turns]);

  const cancel = useCallback(async () => {
    if (!runningTurnId) return null;
    return request(getSocket(), "turn:cancel", { sessionId, turnId: runningTurnId });
  }, [sessionId, runningTurnId]);

  const steer = useCallback(
    (runId: string, message: string) => request(getSocket(), "subagent:steer", { sessionId, runId, message }),
    [sessionId],
  );
  const kill = useCallback((runId: string) => request(getSocket(), "subagent:kill", { sessionId, runId }), [sessionId]);
  const decide = useCallback(
    (callId: string, runId: string | null, decision: "approve" | "deny", reason?: string) =>
      request(getSocket(), "tool:decide", { sessionId, callId, runId, decision, ...(reason ? { reason } : {}) }),
    [sessionId],
  );

  const answer = useCallback(
    (callId: string, runId: string | null, action: "accept" | "decline", content?: InputContent) =>
      request(getSocket(), "tool:answer", { sessionId, callId, runId, action, ...(content ? { content } : {}) }),
    [sessionId],
  );

  const retry = useCallback(
    (runId: string, task?: string) =>
      request(getSocket(), "subagent:retry", task === undefined ? { sessionId, runId } : { sessionId, runId, task }),
    [sessionId],
  );

  const edit = useCallback(
    (turnId: string, text: string, model?: string) =>
      request(getSocket(), "turn:edit", { sessionId, turnId, text, ...(model ? { model } : {}) }),
    [sessionId],
  );
  const regenerate = useCallback(
    (turnId: string, model?: string) => request(getSocket(), "turn:regenerate", { sessionId, turnId, ...(model ? { model } : {}) }),
    [sessionId],
  );
  const switchBranch = useCallback(
    async (turnId: string) => {
      const ack = await request(getSocket(), "session:branch", { sessionId, turnId });
      if (ack.ok) dispatch({ type: "branched", result: ack.data });
      return ack;
    },
    [sessionId, dispatch],
  );
  const fork = useCallback((turnId: string) => request(getSocket(), "session:fork", { sessionId, turnId }), [sessionId]);

  return {
    state,
    older,
    loaded,
    joinError,
    busy: isBusy(state),
    runningTurnId,
    send,
    cancel,
    steer,
    kill,
    decide,
    answer,
    retry,
    edit,
    regenerate,
    switchBranch,
    fork,
  };
}
