import type { Metadata } from "next";
import { headers } from "next/headers";
import { cache } from "react";
import { ChatView } from "@/components/chat/chat-view";
import { ScrollListToEnd } from "@/components/chat/scroll-to-end";
import { nonceOf } from "@/server/http/headers";
import { initialChat, PAGE_VIEWER_HEADER, pageViewer } from "@/server/http/page-viewer";

interface Props {
  params: Promise<{ id: string }>;
}

/**
 * The join's first page, read in this process for whoever the server admitted for this
 * request: the turns are in the HTML, and the socket joins behind them. Once per request
 * (the title and the page share it).
 */
const loadChat = cache(async (id: string) => initialChat(pageViewer((await headers()).get(PAGE_VIEWER_HEADER)), id));

/** The tab names the chat from the first paint (the shell keeps it current afterwards). */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const initial = await loadChat((await params).id);
  return initial && "snapshot" in initial && initial.snapshot.title ? { title: `${initial.snapshot.title} · Delegate` } : {};
}

export default async function SessionPage({ params }: Props) {
  const { id } = await params;
  const initial = await loadChat(id);
  const nonce = nonceOf((await headers()).get("content-security-policy"));
  return (
    <>
      {/* Keyed by id: switching sessions starts a fresh subscription and reducer state. */}
      <ChatView key={id} sessionId={id} initial={initial} />
      {initial && "snapshot" in initial && initial.snapshot.turns.length > 0 ? <ScrollListToEnd nonce={nonce} /> : null}
    </>
  );
}
