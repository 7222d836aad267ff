import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: "Delegate",
  description: "Chat with an agent that delegates to subagents you can watch and audit.",
};

/**
 * Every page renders per request: the server gives each response a CSP nonce, which Next
 * can put on its inline scripts only when it renders the page for that response (a
 * prerendered page would carry scripts no nonce allows). The pages are small; rendering
 * them costs about a millisecond.
 */
export const dynamic = "force-dynamic";

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // theme-init.js sets the `dark` class before hydration, so the attribute differs by design.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Blocking on purpose: it must run before first paint to avoid a theme flash. suppressHydrationWarning
            keeps React 19 from flagging a script it will not (and need not) run again on the client. */}
        {/* eslint-disable-next-line @next/next/no-sync-scripts */}
        <script src="/theme-init.js" suppressHydrationWarning />
      </head>
      <body className="h-dvh overflow-hidden">{children}</body>
    </html>
  );
}
