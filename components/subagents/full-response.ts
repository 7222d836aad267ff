import { z } from "zod";
import { sessionApiBase } from "./panel-actions";

const fullResponseSchema = z.object({ response: z.string() });
const errorBodySchema = z.object({ error: z.object({ message: z.string() }) });

export interface ToolCallRef {
  sessionId: string;
  callId: string;
  /** Call ids come from models and repeat across runs, so the turn and run pin the call down. */
  turnId?: string;
  runId: string | null;
  /** A share link's read base instead of the owner's (see PanelActions.apiBase). */
  apiBase?: string;
}

/** Fetches a tool call's full result when only a preview travelled with the events. */
export async function fetchFullResponse(ref: ToolCallRef, signal?: AbortSignal): Promise<string> {
  const query = new URLSearchParams();
  if (ref.turnId) query.set("turn", ref.turnId);
  if (ref.runId) query.set("run", ref.runId);
  const path = `${sessionApiBase(ref.sessionId, ref.apiBase)}/tool-calls/${encodeURIComponent(ref.callId)}`;
  const url = query.size > 0 ? `${path}?${query.toString()}` : path;
  const res = await fetch(url, { credentials: "same-origin", signal, headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const problem = errorBodySchema.safeParse(body);
    throw new Error(problem.success ? problem.data.error.message : `The server answered ${res.status}.`);
  }
  const parsed = fullResponseSchema.safeParse(body);
  if (!parsed.success) throw new Error("The server sent an unexpected answer.");
  return parsed.data.response;
}
