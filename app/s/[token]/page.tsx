import type { Metadata } from "next";
import { ShareView } from "@/components/share/share-view";

export const metadata: Metadata = { title: "Shared chat · Delegate", robots: { index: false, follow: false }, referrer: "no-referrer" };

/** A read-only shared chat (a share link); the server checks the link on its socket and reads. */
export default async function SharedChatPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <ShareView key={token} token={token} />;
}
