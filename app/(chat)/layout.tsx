import type { ReactNode } from "react";
import { AppShell } from "@/components/chat/app-shell";

/**
 * Chat pages share one shell, so the sidebar and socket survive moving between sessions.
 * `title` (the `@title` slot) is the header's title as the server renders it.
 */
export default function ChatLayout({ children, title }: { children: ReactNode; title: ReactNode }) {
  return <AppShell serverTitle={title}>{children}</AppShell>;
}
