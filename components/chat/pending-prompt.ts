/**
 * Hand-off of a prompt typed on the home page to the session page it creates: the
 * session page sends it after joining, so the optimistic bubble and the live stream
 * belong to one subscription. Lives in module memory, which survives client navigation.
 */
const pending = new Map<string, string>();

export function setPendingPrompt(sessionId: string, text: string): void {
  pending.set(sessionId, text);
}

export function takePendingPrompt(sessionId: string): string | undefined {
  const text = pending.get(sessionId);
  pending.delete(sessionId);
  return text;
}
