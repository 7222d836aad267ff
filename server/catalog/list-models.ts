import { readModelList, type ListedModel } from "@/lib/catalog/listing";

/** A model list longer than this is refused as it streams in (a real one is well under 1 MB). */
export const MAX_LIST_BYTES = 4 * 2 ** 20;

/**
 * `GET <baseURL>/models` with the endpoint's key, within `timeoutMs`, its body read up to
 * MAX_LIST_BYTES: the endpoint's answer, or an Error whose message says what went wrong
 * in words an operator can act on.
 */
export async function listModels(
  baseURL: string,
  apiKey: string | undefined,
  timeoutMs: number,
  fetcher: typeof fetch = fetch,
): Promise<ListedModel[]> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  let response: Response;
  try {
    response = await fetcher(url, {
      headers: { accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const name = (error as Error).name;
    throw new Error(name === "TimeoutError" ? `no answer in ${timeoutMs / 1000} s` : `unreachable (${(error as Error).message})`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`answered HTTP ${response.status}${response.status === 401 ? " (check its key)" : ""}`);
  }
  const text = await readBounded(response);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error("answered something that is not JSON");
  }
  return readModelList(body);
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_LIST_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`sent a model list larger than ${MAX_LIST_BYTES / 2 ** 20} MB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
