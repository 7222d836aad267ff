import { memo } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/** The person's prompt: plain text (never markdown), so what they typed is what they see. */
export const UserMessage = memo(function UserMessage({ text }: { text: string }) {
  return (
    <div data-testid="message-user" className="group flex items-end justify-end gap-1">
      <div className="opacity-100 transition-opacity sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100">
        <CopyButton text={text} label="Copy prompt" />
      </div>
      <div className="max-w-[85%] rounded-2xl rounded-br-md bg-zinc-100 px-4 py-2.5 text-[15px] leading-relaxed break-words whitespace-pre-wrap text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
        {text}
      </div>
    </div>
  );
});
