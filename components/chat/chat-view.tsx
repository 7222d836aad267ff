"use client";

import { ChatAgents } from "@/components/agents/chat-agents";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useState } from "react";
import { PanelActionsProvider, type PanelActions } from "@/components/subagents/panel-actions";
import { RetryLinksProvider, useRetryLinks } from "@/components/subagents/retry-links";
import { ErrorBanner } from "@/components/ui/error-banner";
import { AlertIcon, SpinnerIcon } from "@/components/ui/icons";
import { ApprovalBanner } from "./approval-banner";
import { Composer } from "./composer";
import { EmptyState } from "./empty-state";
import { MessageList } from "./message-list";
import { takePendingPrompt } from "./pending-prompt";
import type { InitialChat, JoinSnapshot } from "@/lib/chat/session-state";
import { useLeaving } from "./shell-context";
import { useSession } from "./use-session";
import { useQueuedPrompt } from "./use-queued-prompt";
import { QueuedRow } from "./queued-row";
import { useReportLastTurn } from "./last-turn";
import { useReportTurnSpend } from "@/components/budgets/turn-spend";
import { BudgetField } from "@/components/budgets/budget-field";
import { budgetFromField } from "@/lib/budgets/spend";
import { useAppInfo } from "@/components/realtime/use-app-info";
import { BranchActionsProvider, CONTINUE_PROMPT, type BranchActions } from "./branch-actions";
import { useRouter } from "next/navigation";
import { ModelPicker } from "@/components/catalog/model-picker";
import { useChatSettings } from "@/components/catalog/use-chat-settings";
import { useModels } from "@/components/catalog/use-models";
import { AttachmentLinksProvider } from "@/components/attachments/attachment-links";
import { useAttachmentDrafts } from "@/components/attachments/use-attachment-drafts";
import { useMembers } from "@/components/members/use-members";
import { PeopleProvider } from "@/components/members/people-context";
import { typingLine, useTyping } from "@/components/members/use-typing";
import { can } from "@/lib/members/can";

export interface ChatViewProps {
  sessionId: string;
  /** What the page's HTML was rendered with (server/http/page-viewer.ts); null: join over the socket first. */
  initial?: InitialChat | null;
}

/**
 * One open session. Rendered on the server with the join's first page when the page
 * could read it, so the turns are in the HTML; a chat that is not there for this person
 * says so at once, with no socket join at all.
 */
export function ChatView({ sessionId, initial }: ChatViewProps) {
  if (initial && "notFound" in initial) return <JoinProblem message="" notFound />;
  return <OpenChat sessionId={sessionId} initial={initial?.snapshot ?? null} />;
}

/** One open session: its turns, the composer, and the errors a person should see. */
function OpenChat({ sessionId, initial }: { sessionId: string; initial: JoinSnapshot | null }) {
  const {
    state,
    older,
    loaded,
    joinError,
    busy,
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
  } = useSession(sessionId, initial);
  const router = useRouter();
  const people = useMembers(sessionId);
  // Until the role is read, the controls stay as for the owner: the server refuses what the role does not allow anyway.
  const role = people.members?.you;
  const canAct = !role || can(role, "send");
  const isOwner = !role || can(role, "branch");
  // Only a chat with others in it says who is typing.
  const shared = (people.members?.people.length ?? 0) > 1;
  const typing = useTyping(sessionId, people.members?.me, shared && canAct);
  const typingNow = typingLine(typing.typing);
  const [editing, setEditing] = useState<string | null>(null);
  const [commandError, setCommandError] = useState<string | null>(null);
  const leaving = useLeaving();
  const models = useModels();
  const info = useAppInfo();
  const chat = useChatSettings(sessionId);
  const model = chat.settings?.model || undefined;
  const { setModel } = chat;
  const drafts = useAttachmentDrafts(sessionId);
  const attachedIds = drafts.ids;
  const [budgetText, setBudgetText] = useState("");
  const budgetField = useMemo(() => budgetFromField(budgetText), [budgetText]);
  const budget = budgetField.ok ? budgetField.budget : undefined;
  const sendOnModel = useCallback(
    async (text: string) => {
      if (!budgetField.ok) {
        setCommandError(`Not sent: ${budgetField.message}`);
        return false;
      }
      return send(text, model, attachedIds, budget);
    },
    [send, model, attachedIds, budget, budgetField],
  );
  const queued = useQueuedPrompt(sessionId, runningTurnId !== null, sendOnModel);
  const pickModel = useCallback(
    async (key: string) => {
      const ack = await setModel(key);
      if (ack && !ack.ok) setCommandError(`Could not switch the model: ${ack.message}`);
    },
    [setModel],
  );

  // A primitive, so the actions (read by every prompt and answer) change only when it does, not with each streamed token.
  const lastTurnId = busy ? null : (state.turns.at(-1)?.turnId ?? null);
  const branchActions = useMemo<BranchActions>(() => {
    const failed = (what: string) => (ack: { ok: boolean; message?: string }) => {
      if (!ack.ok) setCommandError(`${what}: ${ack.message}`);
      return ack.ok;
    };
    return {
      siblings: state.siblings,
      lastTurnId,
      editing,
      setEditing,
      edit: async (turnId, text) => failed("Could not send the edit")(await edit(turnId, text, model)),
      regenerate: (turnId) => void regenerate(turnId, model).then(failed("Could not regenerate")),
      switchTo: (turnId) => void switchBranch(turnId).then(failed("Could not show that version")),
      fork: (turnId) =>
        void fork(turnId).then((ack) => {
          if (failed("Could not fork")(ack) && ack.ok) router.push(`/c/${encodeURIComponent(ack.data.sessionId)}`);
        }),
      continueStopped: () => void send(CONTINUE_PROMPT, model),
    };
  }, [state.siblings, lastTurnId, editing, edit, regenerate, switchBranch, fork, model, router, send]);

  // A viewer's panels show no steer, kill, retry, decision or answer.
  const actions = useMemo<PanelActions>(
    () => (canAct ? { sessionId, steer, kill, decide, answer, retry } : { sessionId, steer, kill, readOnly: true }),
    [canAct, sessionId, steer, kill, decide, answer, retry],
  );
  const retryLinks = useRetryLinks(state.turns);
  useReportLastTurn(sessionId, state.turns.findLast((t) => t.status !== "running")?.turnId);
  useReportTurnSpend(
    sessionId,
    state.turns.findLast((t) => t.status === "running"),
  );

  // A prompt typed on the home page is sent once this session is joined.
  useEffect(() => {
    if (!loaded) return;
    const prompt = takePendingPrompt(sessionId);
    if (!prompt) return;
    // The home page checked the budget before it made the chat; the field keeps it for the turns after.
    const pendingBudget = prompt.budgetText ? budgetFromField(prompt.budgetText) : undefined;
    if (prompt.budgetText) setBudgetText(prompt.budgetText);
    const budget = pendingBudget?.ok ? pendingBudget.budget : undefined;
    // The send sets the chat's model to the one the home page showed; the picker follows.
    void send(prompt.text, prompt.model, prompt.attachments, budget).then(async (ok) => {
      if (ok === true && prompt.model) await setModel(prompt.model);
    });
  }, [loaded, sessionId, send, setModel]);

  const stop = useCallback(async () => {
    const ack = await cancel();
    if (ack && !ack.ok) setCommandError(`Could not stop: ${ack.message}`);
  }, [cancel]);

  // Escape stops the running turn, as in the chat apps people know, unless it is meant for
  // something else: a field of its own (a steer or deny reason), a dialog, a menu.
  useEffect(() => {
    if (!runningTurnId) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.isComposing) return;
      const target = e.target instanceof Element ? e.target : null;
      const ownField = target?.closest("input, textarea, select, [contenteditable=true]") && target.id !== "composer";
      if (ownField || target?.closest("[role=dialog], [role=menu], [role=listbox]")) return;
      // Decided once every handler has seen the key (React's, on this same document, and
      // window's run in either order): one that used it (closing a confirm, a drawer, a
      // popover) marks it handled, and then the turn goes on.
      setTimeout(() => {
        if (!e.defaultPrevented) void stop();
      }, 0);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [runningTurnId, stop]);

  if (people.lost) return <AccessLost />;
  if (joinError && !loaded) return <JoinProblem message={joinError.message} notFound={joinError.code === "not_found"} />;

  const errorBanner = commandError ? <ErrorBanner message={commandError} onDismiss={() => setCommandError(null)} /> : null;

  return (
    <PeopleProvider members={people.members}>
      <PanelActionsProvider value={actions}>
        {/* Editing, regenerating, switching versions and forking are the owner's: a member's turns show none of them. */}
        <BranchActionsProvider value={isOwner ? branchActions : null}>
          <div className="flex h-full flex-col">
            {!loaded ? (
              <div className="flex flex-1 items-center justify-center gap-2 text-sm text-zinc-500 dark:text-zinc-400" role="status">
                <SpinnerIcon /> Loading chat…
              </div>
            ) : state.turns.length === 0 && state.pending.length === 0 ? (
              <div className="relative min-h-0 flex-1 overflow-y-auto">
                <EmptyState
                  onPick={(prompt) => {
                    void sendOnModel(prompt);
                  }}
                />
              </div>
            ) : (
              <RetryLinksProvider value={retryLinks}>
                <AttachmentLinksProvider value={true}>
                  <MessageList turns={state.turns} pending={state.pending} footer={errorBanner} older={older} />
                </AttachmentLinksProvider>
              </RetryLinksProvider>
            )}
            {state.turns.length === 0 && state.pending.length === 0 && errorBanner ? (
              <div className="mx-auto w-full max-w-3xl px-3 pb-2 sm:px-4">{errorBanner}</div>
            ) : null}
            <ApprovalBanner turns={state.turns} />
            {typingNow ? (
              <p
                data-testid="typing"
                aria-live="polite"
                className="mx-auto w-full max-w-3xl px-3 pb-1 text-xs text-zinc-600 italic sm:px-4 dark:text-zinc-400"
              >
                {typingNow}
              </p>
            ) : null}
            {canAct ? null : (
              <p data-testid="viewer-note" className="mx-auto w-full max-w-3xl px-3 pb-1 text-xs text-zinc-600 sm:px-4 dark:text-zinc-400">
                You are a viewer of this chat: you see everything live; its owner and collaborators send prompts and decide.
              </p>
            )}
            {queued.text !== null ? <QueuedRow text={queued.text} onCancel={queued.cancel} /> : null}
            <Composer
              onSend={sendOnModel}
              onQueue={queued.queue}
              queued={queued.text !== null}
              attachments={drafts}
              onStop={runningTurnId ? stop : undefined}
              running={busy}
              disabled={!loaded || leaving || !canAct}
              onTyping={typing.typed}
              onEditLast={() => {
                const last = state.turns.at(-1);
                if (last) setEditing(last.turnId);
              }}
              tools={
                <>
                  <ModelPicker catalog={models} value={model} onChange={(key) => void pickModel(key)} disabled={busy} />
                  <BudgetField
                    value={budgetText}
                    onChange={setBudgetText}
                    fallback={info?.turnBudget}
                    invalid={budgetField.ok ? undefined : budgetField.message}
                    disabled={busy}
                  />
                  <ChatAgents sessionId={sessionId} />
                </>
              }
            />
          </div>
        </BranchActionsProvider>
      </PanelActionsProvider>
    </PeopleProvider>
  );
}

/** The owner removed this person from the chat: its view closes at once. */
function AccessLost() {
  return (
    <ChatUnavailable
      testId="access-lost"
      title="You no longer have access to this chat"
      detail="Its owner removed you from its members."
      alert
    />
  );
}

function JoinProblem({ message, notFound }: { message: string; notFound: boolean }) {
  return (
    <ChatUnavailable
      title={notFound ? "This chat does not exist, or it was deleted." : "This chat could not be opened."}
      detail={notFound ? undefined : message}
    />
  );
}

/** Why a chat cannot be shown, and the way back to the start. */
function ChatUnavailable({ title, detail, testId, alert }: { title: string; detail?: string; testId?: string; alert?: boolean }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-3 px-4 text-center" data-testid={testId}>
      <AlertIcon size={22} className="text-zinc-400" />
      <p role={alert ? "alert" : undefined} className="text-base font-medium text-zinc-800 dark:text-zinc-200">
        {title}
      </p>
      {detail ? <p className="max-w-md text-sm text-zinc-500 dark:text-zinc-400">{detail}</p> : null}
      <Link
        href="/"
        className="rounded-md border border-zinc-300 px-3 py-1.5 text-sm hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        Back to start
      </Link>
    </div>
  );
}
