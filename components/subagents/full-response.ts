import { z } from "zod";

const fullResponseSchema = z.object({ response: z.string() });
const errorBodySchema = z.object({ error: z.object({ message: z.string() }) });

/** Fetches a tool call's full result when only a preview travelled with the events. */
export async function fetchFullResponse(sessionId: string, callId: string, signal?: AbortSignal): Promise<string> {
  const url = `/api/sessions/${encodeURIComponent(sessionId)}/tool-calls/${encodeURIComponent(callId)}`;
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
