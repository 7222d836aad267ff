import type { Metadata } from "next";
import { AdminPage } from "@/components/accounts/admin-page";

export const metadata: Metadata = { title: "Administration · Delegate" };

export default function Admin() {
  return <AdminPage />;
}
