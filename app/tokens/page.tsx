import type { Metadata } from "next";
import { TokensPage } from "@/components/api-tokens/tokens-page";

export const metadata: Metadata = { title: "Tokens · Delegate" };

export default function Tokens() {
  return <TokensPage />;
}
