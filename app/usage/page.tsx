import type { Metadata } from "next";
import { UsagePage } from "@/components/usage/usage-page";

export const metadata: Metadata = { title: "Usage · Delegate" };

export default function Usage() {
  return <UsagePage />;
}
