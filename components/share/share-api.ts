import { SHARE_ROUTES, type ShareCreate, type ShareCreated, type ShareLinkView } from "@/lib/contracts";

/** The owner's share-link routes (server/share/share-routes.ts); errors become their message. */
async function call<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (!res.ok) throw new Error(answer?.error?.message ?? `The server answered ${res.status}.`);
  return answer as T;
}

export async function listShareLinks(sessionId: string): Promise<ShareLinkView[]> {
  return (await call<{ links: ShareLinkView[] }>(SHARE_ROUTES.links(sessionId))).links;
}

export function createShareLink(sessionId: string, input: ShareCreate): Promise<ShareCreated> {
  return call<ShareCreated>(SHARE_ROUTES.links(sessionId), input);
}

export async function revokeShareLink(sessionId: string, linkId: string): Promise<void> {
  await call(SHARE_ROUTES.revoke(sessionId, linkId), {});
}
