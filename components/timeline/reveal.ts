"use client";

import { setDisclosure } from "@/components/ui/disclosure";
import { panelAnchor } from "@/components/subagents/retry-links";
import { announceReveal, revealInWindows } from "@/components/steps/reveal-window";
import type { TimelineRow } from "@/lib/timeline/timeline";

/**
 * Opens what a timeline row stands for and scrolls to it: the panels that hold it, then
 * the run's own panel or the call's chip (opened too), focused so the keyboard carries on
 * from there. Panels render their bodies once open, and a long list renders only the
 * items in view, so the target is looked for over the next frames (as the approval
 * banner does), each time asking the windowed lists on the way to bring it into theirs.
 */
export function revealRow(row: TimelineRow, turnId: string): void {
  announceReveal();
  for (const runId of row.runPath) setDisclosure(`run:${runId}`, true);
  if (row.kind === "run" && row.runId) setDisclosure(`run:${row.runId}`, true);
  if (row.kind === "call" && row.callId) setDisclosure(`tool:${turnId}:${row.runId ?? "m"}:${row.callId}`, true);
  const path = { turnId, runPath: row.runPath, runId: row.runId, callId: row.kind === "call" ? row.callId : null };
  let tries = 0;
  const find = () => {
    const target = targetOf(row, turnId);
    if (!target) revealInWindows(path);
    if (target) {
      target.scrollIntoView({ block: "center", behavior: "smooth" });
      const focusable =
        row.kind === "run"
          ? target.querySelector<HTMLElement>("[data-testid=subagent-toggle]")
          : target.querySelector<HTMLElement>("button");
      focusable?.focus({ preventScroll: true });
    } else if (tries++ < 30) requestAnimationFrame(find);
  };
  requestAnimationFrame(find);
}

function targetOf(row: TimelineRow, turnId: string): HTMLElement | null {
  const article = document.querySelector<HTMLElement>(`[data-testid="message-assistant"][data-turn-id="${CSS.escape(turnId)}"]`);
  if (row.kind === "run") return row.runId ? document.getElementById(panelAnchor(row.runId)) : null;
  if (row.kind === "step") return article;
  const owner = row.runId ? document.getElementById(panelAnchor(row.runId)) : article;
  if (!owner || !row.callId) return null;
  // Call ids repeat across runs ("call_0"): the chip must be the owner's own, not a nested run's.
  const ownerPanel = row.runId ? owner : null;
  for (const chip of owner.querySelectorAll<HTMLElement>(`[data-testid="tool-call"][data-call-id="${CSS.escape(row.callId)}"]`)) {
    if (chip.parentElement?.closest("[data-testid=subagent-panel]") === ownerPanel) return chip;
  }
  return null;
}
