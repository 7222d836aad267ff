import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { ServiceWorkerRegistration } from "@/components/pwa/service-worker-registration";
import { THEME_INIT_SCRIPT } from "@/components/ui/theme-init";
import { APP_VERSION } from "@/lib/app-version";
import { nonceOf } from "@/server/http/headers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Delegate",
  description: "Chat with an agent that delegates to subagents you can watch and audit.",
  // public/ holds these; app/icon.svg is served as /icon.svg by Next's file convention.
  manifest: "/manifest.webmanifest",
  icons: {
    icon: [
      { url: "/icon.svg", type: "image/svg+xml" },
      { url: "/favicon.ico", sizes: "48x48" },
      { url: "/icon-192.png", type: "image/png", sizes: "192x192" },
    ],
    apple: { url: "/apple-touch-icon.png", sizes: "180x180" },
  },
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

export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = nonceOf((await headers()).get("content-security-policy"));
  return (
    // The theme script sets the `dark` class before hydration, so the attribute differs by design.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Inline and blocking on purpose: it must run before first paint to avoid a theme flash. suppressHydrationWarning
            keeps React 19 from flagging a script it will not (and need not) run again on the client (and a nonce the browser hides). */}
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: THEME_INIT_SCRIPT }} />
      </head>
      <body className="h-dvh overflow-hidden">
        {children}
        <ServiceWorkerRegistration version={APP_VERSION} />
      </body>
    </html>
  );
}
