import Link from "next/link";
import type { ReactNode } from "react";
import { ThemeToggle } from "@/components/ui/theme-toggle";

/** The frame of the account and admin pages: back to the chats, the title, the theme. */
export function PageFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="h-full overflow-y-auto">
      <header className="flex h-12 items-center gap-2 border-b border-zinc-200 px-2 sm:px-4 dark:border-zinc-800">
        <Link
          href="/"
          className="rounded-md px-2 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          <span aria-hidden="true">← </span>Chats
        </Link>
        <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">{title}</h1>
        <ThemeToggle />
      </header>
      <main className="mx-auto w-full max-w-3xl space-y-8 px-4 py-6">{children}</main>
    </div>
  );
}

export function Section({
  title,
  description,
  children,
  testId,
}: {
  title: string;
  description?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section data-testid={testId} className="space-y-3">
      <div>
        <h2 className="text-base font-semibold">{title}</h2>
        {description ? <p className="mt-0.5 text-sm text-zinc-600 dark:text-zinc-400">{description}</p> : null}
      </div>
      {children}
    </section>
  );
}

/** A date and time a person reads at a glance, with the full one on hover. */
export function When({ iso, empty = "—" }: { iso: string | null; empty?: string }) {
  if (!iso) return <>{empty}</>;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return <>{empty}</>;
  return (
    <time dateTime={iso} title={at.toLocaleString("en-GB", { dateStyle: "full", timeStyle: "long" })}>
      {at.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", hour12: false })}
    </time>
  );
}
