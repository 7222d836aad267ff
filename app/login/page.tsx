import type { Metadata } from "next";
import { LoginForm } from "@/components/auth/login-form";

export const metadata: Metadata = { title: "Log in · Delegate" };

/** Shown by the server's APP_PASSWORD gate (pages redirect here with `?next=`). */
export default function LoginPage() {
  return (
    <main className="flex h-full items-center justify-center overflow-y-auto px-4">
      <LoginForm />
    </main>
  );
}
