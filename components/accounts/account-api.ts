import { z } from "zod";
import { ACCOUNT_ROUTES, type AuthState } from "@/lib/contracts/account";

/** What every account call resolves to: never a throw, so each form handles failure one way. */
export type ApiResult<T> =
  { ok: true; data: T } | { ok: false; status: number; message: string; issues?: { path: string; message: string }[] };

const errorBodySchema = z.object({
  error: z.object({ message: z.string(), issues: z.array(z.object({ path: z.string(), message: z.string() })).optional() }),
});

/**
 * One JSON call to the accounts API, same origin with the cookies. A POST without a body
 * still sends `{}` so the server's content-type and size checks see a JSON request.
 */
export async function callApi<T>(path: string, body?: unknown): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      credentials: "same-origin",
      cache: "no-store",
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  } catch {
    return { ok: false, status: 0, message: "Could not reach the server. Check the connection and try again." };
  }
  const json: unknown = await res.json().catch(() => null);
  if (res.ok) return { ok: true, data: json as T };
  const error = errorBodySchema.safeParse(json);
  if (!error.success) return { ok: false, status: res.status, message: `The server answered ${res.status}.` };
  const { message, issues } = error.data.error;
  return { ok: false, status: res.status, message, ...(issues ? { issues } : {}) };
}

export const post = <T = unknown>(path: string, body: unknown = {}) => callApi<T>(path, body);

/**
 * Today's behaviour when the server has no accounts (or the APP_PASSWORD gate answers
 * before it): a browser is a person, nothing account-related shows.
 */
export const SINGLE_STATE: AuthState = { mode: "single", account: null, signUpOpen: false, sso: null, claimable: 0 };

export async function fetchAuthState(): Promise<AuthState> {
  const result = await callApi<AuthState>(ACCOUNT_ROUTES.state);
  return result.ok && result.data && typeof result.data === "object" && "mode" in result.data ? result.data : SINGLE_STATE;
}

/**
 * The list routes answer a JSON array; an object wrapping one array (`{ sessions: [...] }`)
 * is read the same way, so the page does not break on the envelope.
 */
export async function fetchList<T>(path: string): Promise<ApiResult<T[]>> {
  const result = await callApi<unknown>(path);
  if (!result.ok) return result;
  const data = result.data;
  if (Array.isArray(data)) return { ok: true, data: data as T[] };
  const inner = data && typeof data === "object" ? Object.values(data).find(Array.isArray) : undefined;
  return inner ? { ok: true, data: inner as T[] } : { ok: false, status: 200, message: "The server's answer was not a list." };
}
