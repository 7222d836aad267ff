"use client";

import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { MAX_STEER_CHARS, type SubagentProcess } from "@/lib/contracts";
import { runOutcome } from "@/lib/subagents/run-summary";
import { ActionError } from "@/components/ui/action-error";
import { useAction, type Action } from "@/components/ui/use-action";
import { usePanelActions, type PanelActions } from "./panel-actions";
import { SteerIcon, StopCircleIcon } from "./status-icon";

/**
 * Steer and Kill for a running subagent, on its panel's header. Each opens a strip right
 * under the header: steer a one-line form, kill an in-place confirm (it discards the run's
 * unfinished work; steering only redirects, so it asks nothing: the asymmetry is deliberate).
 * The strip belongs to the panel, not to the running state: when the run ends first it
 * stays and says so, and keeps the keyboard focus it had.
 */

type Mode = "steer" | "kill" | null;
type Notice = { tone: "ok" | "error" | "neutral"; text: string } | null;

export interface RunControls {
  actions: PanelActions | null;
  panel: SubagentProcess;
  mode: Mode;
  open: (mode: Mode) => void;
  close: () => void;
  notice: Notice;
  setNotice: (notice: Notice) => void;
  /** Steers the run had when the last one was sent: the panel shows it once the run reads it. */
  sentAt: number | null;
  setSentAt: (n: number | null) => void;
  /** The kill request; while it is pending, the run ending is its answer, not news. */
  kill: Action;
  steerButton: React.RefObject<HTMLButtonElement | null>;
  killButton: React.RefObject<HTMLButtonElement | null>;
}

export function useRunControls(panel: SubagentProcess): RunControls {
  const provided = usePanelActions();
  // A shared chat's viewer watches; steering and killing are the owner's.
  const actions = provided?.readOnly ? null : provided;
  const [mode, setMode] = useState<Mode>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [sentAt, setSentAt] = useState<number | null>(null);
  const kill = useAction();
  const steerButton = useRef<HTMLButtonElement>(null);
  const killButton = useRef<HTMLButtonElement>(null);
  return {
    actions,
    panel,
    mode,
    open: (next) => {
      setNotice(null);
      kill.clear();
      setMode(next);
    },
    close: () => setMode(null),
    notice,
    setNotice,
    sentAt,
    setSentAt,
    kill,
    steerButton,
    killButton,
  };
}

const headerButton =
  "inline-flex h-7 shrink-0 items-center gap-1 rounded-md border px-1.5 text-xs font-medium focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-sky-500 sm:px-2";

/** The header's Steer and Kill, while the run runs. */
export function HeaderActions({ controls }: { controls: RunControls }) {
  const { actions, panel, mode } = controls;
  if (!actions || panel.status !== "running") return null;
  return (
    <div className="flex shrink-0 items-center gap-1 pr-2" data-testid="run-actions">
      <button
        ref={controls.steerButton}
        type="button"
        data-testid="steer"
        aria-expanded={mode === "steer"}
        aria-label={`Steer ${panel.name}`}
        title={`Steer ${panel.name}: send it a message`}
        onClick={() => controls.open(mode === "steer" ? null : "steer")}
        className={`${headerButton} border-zinc-200 text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800`}
      >
        <SteerIcon size={13} />
        <span className="hidden sm:inline">Steer</span>
      </button>
      <button
        ref={controls.killButton}
        type="button"
        data-testid="kill"
        aria-expanded={mode === "kill"}
        aria-label={`Kill ${panel.name}`}
        title={`Kill ${panel.name}: stop it now`}
        onClick={() => controls.open(mode === "kill" ? null : "kill")}
        className={`${headerButton} border-red-200 text-red-700 hover:bg-red-50 dark:border-red-900 dark:text-red-300 dark:hover:bg-red-950`}
      >
        <StopCircleIcon size={13} />
        <span className="hidden sm:inline">Kill</span>
      </button>
    </div>
  );
}

/** The strip under the header: the steer form, the kill confirm, or what became of them. */
export function ControlStrip({ controls, onEndedFocus }: { controls: RunControls; onEndedFocus: () => void }) {
  const { actions, panel, mode, notice, sentAt, setSentAt, setNotice } = controls;
  const running = panel.status === "running";
  const steers = panel.steering?.length ?? 0;
  const strip = useRef<HTMLDivElement>(null);
  const dismiss = useRef<HTMLButtonElement>(null);

  // A steer that was sent shows in the panel once the run reads it; if the run ends first, say so.
  useEffect(() => {
    if (sentAt === null) return;
    if (steers > sentAt) {
      setSentAt(null);
      setNotice(null);
    } else if (!running) {
      setSentAt(null);
      setNotice({ tone: "neutral", text: `${panel.name} ended before it read your message.` });
    }
  }, [sentAt, steers, running, panel.name, setSentAt, setNotice]);

  const ended = mode !== null && !running && !controls.kill.pending;
  // Whether the person was in the strip: its focused button may be gone by the time we look.
  const hadFocus = useRef(false);
  // The run ended under an open form or confirm: keep the focus in the strip, on its one button.
  useEffect(() => {
    const active = document.activeElement;
    if (ended && hadFocus.current && (active === document.body || active === null || strip.current?.contains(active)))
      dismiss.current?.focus();
  }, [ended]);

  if (!actions || (mode === null && notice === null)) return null;

  const closeAndReturn = () => {
    const back = mode === "kill" ? controls.killButton.current : controls.steerButton.current;
    controls.close();
    controls.setNotice(null);
    if (back && running) back.focus();
    else onEndedFocus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      // Handled here: the page's own Escape (stop the turn) must not also act.
      e.preventDefault();
      e.stopPropagation();
      closeAndReturn();
    }
  };

  return (
    <div
      ref={strip}
      onKeyDown={onKeyDown}
      onFocus={() => (hadFocus.current = true)}
      onBlur={(e) => {
        if (e.relatedTarget instanceof Node && !strip.current?.contains(e.relatedTarget)) hadFocus.current = false;
      }}
      data-testid="control-strip"
      className="border-t border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800"
    >
      {ended ? (
        <EndedNotice panel={panel} mode={mode} dismissRef={dismiss} onDismiss={closeAndReturn} />
      ) : mode === "steer" ? (
        <SteerForm controls={controls} actions={actions} onCancel={closeAndReturn} />
      ) : mode === "kill" ? (
        <KillConfirm controls={controls} actions={actions} onCancel={closeAndReturn} />
      ) : notice ? (
        <div className="flex flex-wrap items-center gap-2">
          <span role="status" data-testid="control-notice" className={toneClass(notice.tone)}>
            {notice.text}
          </span>
          <button
            type="button"
            onClick={closeAndReturn}
            className="rounded px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            Dismiss
          </button>
        </div>
      ) : null}
    </div>
  );
}

function SteerForm({ controls, actions, onCancel }: { controls: RunControls; actions: PanelActions; onCancel: () => void }) {
  const { panel } = controls;
  const [message, setMessage] = useState("");
  const { pending, error, run } = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = message.trim();
    if (!text) return;
    const steersBefore = panel.steering?.length ?? 0;
    void run(() => actions.steer(panel.runId, text), {
      verb: "steer",
      onOk: () => {
        controls.close();
        controls.setSentAt(steersBefore);
        controls.setNotice({ tone: "ok", text: `Sent. ${panel.name} reads it at its next step.` });
      },
    });
  };
  return (
    <form onSubmit={submit} className="flex flex-wrap items-center gap-2">
      <label className="sr-only" htmlFor={`steer-${panel.runId}`}>
        Steer {panel.name}
      </label>
      <input
        id={`steer-${panel.runId}`}
        data-testid="steer-input"
        autoFocus
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        maxLength={MAX_STEER_CHARS}
        placeholder={`Tell ${panel.name} what to focus on…`}
        autoComplete="off"
        className="min-w-0 flex-1 basis-48 rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm placeholder:text-zinc-500 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950 dark:placeholder:text-zinc-400"
      />
      <div className="flex gap-2">
        <button
          type="submit"
          data-testid="steer-send"
          disabled={!message.trim() || pending}
          className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-40 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
        >
          {pending ? "Sending…" : "Send"}
        </button>
        <button
          type="button"
          onClick={onCancel}
          className="rounded-md px-3 py-1.5 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
      </div>
      <ActionError error={error} className="w-full" />
    </form>
  );
}

function KillConfirm({ controls, actions, onCancel }: { controls: RunControls; actions: PanelActions; onCancel: () => void }) {
  const { panel } = controls;
  const { pending, error, run } = controls.kill;
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  const kill = () =>
    void run(() => actions.kill(panel.runId), {
      verb: "kill",
      // Refused because it just ended: the strip then says how (see EndedNotice).
      quiet: (message) => NOT_RUNNING.test(message),
      onOk: controls.close,
    });
  return (
    <div role="group" aria-label={`Kill ${panel.name}?`} className="flex flex-wrap items-center gap-2">
      <span className="text-zinc-700 dark:text-zinc-300">Kill {panel.name}? Its unfinished work is discarded.</span>
      <div className="flex gap-2">
        <button
          ref={confirm}
          type="button"
          data-testid="kill-confirm"
          onClick={kill}
          disabled={pending}
          className="rounded-md bg-red-600 px-3 py-1 font-medium text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-50"
        >
          {pending ? "Killing…" : "Yes, kill"}
        </button>
        <button
          type="button"
          data-testid="kill-cancel"
          onClick={onCancel}
          className="rounded-md px-3 py-1 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
      </div>
      <ActionError error={error} className="w-full" />
    </div>
  );
}

const NOT_RUNNING = /not running/;

function EndedNotice({
  panel,
  mode,
  dismissRef,
  onDismiss,
}: {
  panel: SubagentProcess;
  mode: Mode;
  dismissRef: React.RefObject<HTMLButtonElement | null>;
  onDismiss: () => void;
}) {
  const outcome = runOutcome(panel);
  const how =
    outcome === "succeeded"
      ? "finished"
      : outcome === "stopped"
        ? "was stopped"
        : outcome === "timed_out"
          ? "timed out"
          : outcome === "out_of_budget"
            ? "ran out of budget"
            : "failed";
  const text =
    mode === "kill"
      ? `${panel.name} ${how} before you confirmed: nothing to kill.`
      : `${panel.name} ${how} before you sent your message: it was not delivered.`;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span role="status" data-testid="control-ended" className="text-zinc-700 dark:text-zinc-300">
        {text}
      </span>
      <button
        ref={dismissRef}
        type="button"
        data-testid="control-dismiss"
        onClick={onDismiss}
        className="rounded-md border border-zinc-200 px-2.5 py-1 text-xs text-zinc-700 hover:bg-zinc-100 dark:border-zinc-700 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        OK
      </button>
    </div>
  );
}

function toneClass(tone: "ok" | "error" | "neutral"): string {
  return tone === "ok"
    ? "text-emerald-700 dark:text-emerald-400"
    : tone === "error"
      ? "text-red-700 dark:text-red-400"
      : "text-zinc-700 dark:text-zinc-300";
}
