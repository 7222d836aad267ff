import { chatTitle } from "../../../load-chat";

/** The header's title in the server's HTML, so the first paint names the chat (the shell keeps it current afterwards). */
export default async function ChatHeaderTitle({ params }: { params: Promise<{ id: string }> }) {
  return (await chatTitle((await params).id)) ?? "Delegate";
}
