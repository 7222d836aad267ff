/**
 * Hand-off of a prompt typed on the home page to the session page it creates: the
 * session page sends it after joining, so the optimistic bubble and the live stream
 * belong to one subscription. Lives in module memory, which survives client navigation.
 */
export interface PendingPrompt {
  text: string;
  /** The model the home page's picker showed. */
  model?: string;
  /** Ids of the files the home page uploaded into the new chat for this prompt. */
  attachments?: string[];
  /** What the home page's budget field said, as typed: the chat's field shows it, and the prompt is sent under it. */
  budgetText?: string;
}

const pending = new Map<string, PendingPrompt>();

export function setPendingPrompt(sessionId: string, prompt: PendingPrompt): void {
  pending.set(sessionId, prompt);
}

export function takePendingPrompt(sessionId: string): PendingPrompt | undefined {
  const prompt = pending.get(sessionId);
  pending.delete(sessionId);
  return prompt;
}
