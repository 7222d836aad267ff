import type { Metadata } from "next";
import { OfflineShell } from "@/components/pwa/offline-shell";

export const metadata: Metadata = { title: "Offline · Delegate" };

/** The app-shell worker stores this page (fetched without cookies) and shows it when the network is gone. */
export default function OfflinePage() {
  return <OfflineShell />;
}
