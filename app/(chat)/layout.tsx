import type { ReactNode } from "react";
import { AppShell } from "@/components/chat/app-shell";

/** Chat pages share one shell, so the sidebar and socket survive moving between sessions. */
export default function ChatLayout({ children }: { children: ReactNode }) {
  return <AppShell>{children}</AppShell>;
}
