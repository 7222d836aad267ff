"use client";

import type { ToolCall } from "@/lib/contracts";

/**
 * Where "show me this" (a timeline row, an approval) points: a run's own panel, or a call
 * of `ownerRunId` (null: the master's). `runPath` names the panels that hold the target,
 * outermost first. A windowed list may not have the target's item in the DOM: it is asked
 * to scroll the item into its window, and the caller then looks for the element as usual.
 */
export interface RevealTarget {
  turnId: string;
  runPath: readonly string[];
  runId: string | null;
  callId: string | null;
}

/**
 * Said on the document when something is about to be shown at the reader's request: the
 * chat then stops following the stream's end, which would otherwise scroll back down as
 * the opened panels grow the page.
 */
export const REVEAL_EVENT = "delegate:reveal";

export function announceReveal(): void {
  document.dispatchEvent(new Event(REVEAL_EVENT));
}

type Revealer = (target: RevealTarget) => void;
const windows = new Set<Revealer>();

/** Registers a windowed list; returns its unregistration. */
export function registerWindow(revealer: Revealer): () => void {
  windows.add(revealer);
  return () => windows.delete(revealer);
}

/** Asks every mounted windowed list to bring its part of the path to the target into its window. */
export function revealInWindows(target: RevealTarget): void {
  for (const reveal of windows) reveal(target);
}

/**
 * Whether `call`, made by `ownerRunId` in turn `turnId`, is on the way to the target: it
 * is the target call, or it spawned a run on the path (or the target run itself).
 */
export function callLeadsTo(call: ToolCall, ownerRunId: string | null, turnId: string | undefined, target: RevealTarget): boolean {
  if (turnId !== undefined && turnId !== target.turnId) return false;
  const spawned = call.subagent?.runId;
  if (spawned !== undefined && (spawned === target.runId || target.runPath.includes(spawned))) return true;
  return target.callId !== null && call.callId === target.callId && ownerRunId === target.runId;
}
