import { headers } from "next/headers";
import { cache } from "react";
import { initialChat, PAGE_VIEWER_HEADER, pageViewer } from "@/server/http/page-viewer";

/**
 * The join's first page, read in this process for whoever the server admitted for this
 * request. Once per request: the page, its tab title and the header's title share it.
 */
export const loadChat = cache(async (id: string) => initialChat(pageViewer((await headers()).get(PAGE_VIEWER_HEADER)), id));

/** The chat's title as the server knows it, when this viewer may see the chat. */
export async function chatTitle(id: string): Promise<string | null> {
  const initial = await loadChat(id);
  return initial && "snapshot" in initial && initial.snapshot.title ? initial.snapshot.title : null;
}
