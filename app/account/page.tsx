import type { Metadata } from "next";
import { AccountPage } from "@/components/accounts/account-page";

export const metadata: Metadata = { title: "Your account · Delegate" };

export default function Account() {
  return <AccountPage />;
}
