import { z } from "zod";

const fullResponseSchema = z.object({ response: z.string() });

/** Fetches a tool call's full result when only a preview travelled with the events. */
export async function fetchFullResponse(sessionId: string, callId: string, signal?: AbortSignal): Promise<string> {
  const url = `/api/sessions/${encodeURIComponent(sessionId)}/tool-calls/${encodeURIComponent(callId)}`;
  const res = await fetch(url, { credentials: "same-origin", signal, headers: { accept: "application/json" } });
  if (!res.ok) {
    throw new Error(res.status === 404 ? "This result is no longer stored." : `The server answered ${res.status}.`);
  }
  const parsed = fullResponseSchema.safeParse(await res.json());
  if (!parsed.success) throw new Error("The server sent an unexpected answer.");
  return parsed.data.response;
}
