import type { Metadata } from "next";
import { ResetPage } from "@/components/accounts/reset-page";

export const metadata: Metadata = { title: "Reset password · Delegate" };

export default function Reset() {
  return <ResetPage />;
}
