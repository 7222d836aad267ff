import { z } from "zod";
import { sessionApiBase } from "@/components/subagents/panel-actions";
import { modelCallRecordSchema, modelCallSummarySchema, type ModelCallRecord, type ModelCallSummary } from "@/lib/contracts";

/** The context inspector's two reads (server/http/api.ts), checked like every answer from outside. */

const errorSchema = z.object({ error: z.object({ message: z.string() }) });

async function getJson<T>(url: string, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { credentials: "same-origin", signal });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const error = errorSchema.safeParse(body);
    throw new Error(error.success ? error.data.error.message : `The server answered ${res.status}.`);
  }
  return schema.parse(body);
}

const base = (sessionId: string, apiBase?: string) => `${sessionApiBase(sessionId, apiBase)}/model-calls`;

/** `apiBase`: a share link's read base instead of the owner's. */
export async function fetchModelCalls(
  sessionId: string,
  turnId: string,
  signal?: AbortSignal,
  apiBase?: string,
): Promise<ModelCallSummary[]> {
  const body = await getJson(
    `${base(sessionId, apiBase)}?turn=${encodeURIComponent(turnId)}`,
    z.object({ calls: z.array(modelCallSummarySchema) }),
    signal,
  );
  return body.calls;
}

export async function fetchModelCall(sessionId: string, callId: string, signal?: AbortSignal, apiBase?: string): Promise<ModelCallRecord> {
  const body = await getJson(
    `${base(sessionId, apiBase)}/${encodeURIComponent(callId)}`,
    z.object({ call: modelCallRecordSchema }),
    signal,
  );
  return body.call;
}
