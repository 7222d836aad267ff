"use client";

import { ChatAgents } from "@/components/agents/chat-agents";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { ErrorBanner } from "@/components/ui/error-banner";
import { Composer } from "./composer";
import { EmptyState } from "./empty-state";
import { setPendingPrompt } from "./pending-prompt";
import { useSessions } from "./sessions-context";
import { ModelPicker } from "@/components/catalog/model-picker";
import { useChatSettings } from "@/components/catalog/use-chat-settings";
import { useModels } from "@/components/catalog/use-models";
import { useAttachmentDrafts } from "@/components/attachments/use-attachment-drafts";
import { useHomeChat } from "@/components/attachments/use-home-chat";
import { BudgetField } from "@/components/budgets/budget-field";
import { useAppInfo } from "@/components/realtime/use-app-info";
import { budgetFromField } from "@/lib/budgets/spend";

/**
 * The start page: no session exists until the first prompt, so visiting it never leaves
 * empty chats behind. Sending creates one and hands the prompt to its page.
 */
export function HomeView() {
  const { create } = useSessions();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const models = useModels();
  const { settings, setModel } = useChatSettings(undefined);
  const drafts = useAttachmentDrafts(undefined);
  const chatFor = useHomeChat(create);
  const info = useAppInfo();
  const [budgetText, setBudgetText] = useState("");
  const budgetField = useMemo(() => budgetFromField(budgetText), [budgetText]);

  const start = async (text: string): Promise<boolean> => {
    setError(null);
    // Refused here, before a chat is made for a prompt that could not be sent.
    if (!budgetField.ok) {
      setError(`Not sent: ${budgetField.message}`);
      return false;
    }
    const ack = await chatFor();
    if (!ack.ok) {
      setError(`Could not start a chat: ${ack.message}`);
      return false;
    }
    // The held files go into the new chat before the prompt that names them is sent.
    const attachments = await drafts.uploadHeld(ack.data.sessionId);
    if (!attachments) {
      setError("Some files could not be attached (see why above the box). Remove them, or attach them again, then send.");
      return false;
    }
    setPendingPrompt(ack.data.sessionId, {
      text,
      ...(settings?.model ? { model: settings.model } : {}),
      ...(attachments.length ? { attachments } : {}),
      ...(budgetText.trim() ? { budgetText } : {}),
    });
    router.push(`/c/${encodeURIComponent(ack.data.sessionId)}`);
    return true;
  };

  return (
    <div className="flex h-full flex-col">
      <div className="relative min-h-0 flex-1 overflow-y-auto">
        <EmptyState onPick={(prompt) => void start(prompt)} />
      </div>
      {error ? (
        <div className="mx-auto w-full max-w-3xl px-3 pb-2 sm:px-4">
          <ErrorBanner message={error} />
        </div>
      ) : null}
      <Composer
        onSend={start}
        attachments={drafts}
        running={false}
        tools={
          <>
            <ModelPicker catalog={models} value={settings?.model} onChange={(key) => void setModel(key)} />
            <BudgetField
              value={budgetText}
              onChange={setBudgetText}
              fallback={info?.turnBudget}
              invalid={budgetField.ok ? undefined : budgetField.message}
            />
            <ChatAgents />
          </>
        }
      />
    </div>
  );
}
