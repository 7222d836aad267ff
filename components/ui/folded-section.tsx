"use client";

import { useId, type ReactNode } from "react";
import { ChevronRightIcon } from "./icons";
import { useDisclosure } from "./disclosure";

export interface FoldedSectionProps {
  /** Where its open/closed state is kept (see useDisclosure): unique per section. */
  disclosureKey: string;
  title: string;
  defaultOpen?: boolean;
  testId?: string;
  children: ReactNode;
}

/**
 * A small uppercase heading that folds the section under it (Response, Thinking…): a real
 * button with `aria-expanded`, and content that is not rendered while folded.
 */
export function FoldedSection({ disclosureKey, title, defaultOpen = false, testId, children }: FoldedSectionProps) {
  const [open, setOpen] = useDisclosure(disclosureKey, defaultOpen);
  const id = useId();
  return (
    <div>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className="mb-1 inline-flex items-center gap-1 rounded text-[11px] font-semibold tracking-wide text-zinc-500 uppercase hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200"
      >
        <ChevronRightIcon size={12} className={`transition-transform ${open ? "rotate-90" : ""}`} />
        {title}
      </button>
      <div id={id} hidden={!open} data-testid={testId}>
        {open ? children : null}
      </div>
    </div>
  );
}
