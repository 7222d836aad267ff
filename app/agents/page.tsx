import type { Metadata } from "next";
import { AgentsPage } from "@/components/agents/agents-page";

export const metadata: Metadata = { title: "Agents · Delegate" };

export default function Agents() {
  return <AgentsPage />;
}
