import { ChatView } from "@/components/chat/chat-view";

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Keyed by id: switching sessions starts a fresh subscription and reducer state.
  return <ChatView key={id} sessionId={id} />;
}
