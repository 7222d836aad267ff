import { headers } from "next/headers";
import { ChatView } from "@/components/chat/chat-view";
import { ScrollListToEnd } from "@/components/chat/scroll-to-end";
import { nonceOf } from "@/server/http/headers";
import { initialChat, PAGE_VIEWER_HEADER, pageViewer } from "@/server/http/page-viewer";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const request = await headers();
  // The join's first page, read in this process for whoever the server admitted for this
  // request: the turns are in the HTML, and the socket joins behind them.
  const initial = await initialChat(pageViewer(request.get(PAGE_VIEWER_HEADER)), id);
  return (
    <>
      {/* Keyed by id: switching sessions starts a fresh subscription and reducer state. */}
      <ChatView key={id} sessionId={id} initial={initial} />
      {initial && "snapshot" in initial && initial.snapshot.turns.length > 0 ? <ScrollListToEnd nonce={nonceOf(request.get("content-security-policy"))} /> : null}
    </>
  );
}
