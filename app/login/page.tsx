import type { Metadata } from "next";
import { SignInPage } from "@/components/accounts/sign-in-page";

export const metadata: Metadata = { title: "Sign in · Delegate" };

/** Shown by the server's gates (pages redirect here with `?next=`): APP_PASSWORD or accounts. */
export default function LoginPage() {
  return <SignInPage />;
}
