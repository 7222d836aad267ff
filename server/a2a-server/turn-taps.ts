import type { SessionEvent } from "@/lib/contracts";

type Listener = (event: SessionEvent) => void;

/**
 * Listeners on the events this process relays for a chat: how an A2A task follows the
 * turn it started, without a socket. The turn runs where it was started (this process
 * holds the chat's lease), so its events are relayed here.
 */
export class TurnTaps {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` with each event of the chat until the returned function is called. */
  listen(sessionId: string, listener: Listener): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(sessionId) === set) this.listeners.delete(sessionId);
    };
  }

  emit(event: SessionEvent): void {
    const set = this.listeners.get(event.sessionId);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }
}
