import type { Metadata } from "next";
import { headers } from "next/headers";
import { ChatView } from "@/components/chat/chat-view";
import { ScrollListToEnd } from "@/components/chat/scroll-to-end";
import { nonceOf } from "@/server/http/headers";
import { chatTitle, loadChat } from "../../load-chat";

interface Props {
  params: Promise<{ id: string }>;
}

/** The tab names the chat from the first paint (the shell keeps it current afterwards). */
export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const title = await chatTitle((await params).id);
  return title ? { title: `${title} · Delegate` } : {};
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
