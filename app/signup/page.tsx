import type { Metadata } from "next";
import { SignUpPage } from "@/components/accounts/sign-up-page";

export const metadata: Metadata = { title: "Create an account · Delegate" };

export default function SignUp() {
  return <SignUpPage />;
}
