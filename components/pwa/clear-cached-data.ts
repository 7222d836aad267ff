"use client";

/** How long a sign-out waits for the worker's answer before it leaves anyway. */
const WORKER_ANSWER_MS = 2_000;

interface WorkerAnswer {
  ok: boolean;
  /** The shell's cache, which holds only what is the same for everyone. */
  kept?: string;
}

/** Asks the active worker to drop what it holds per person; null without a worker or an answer. */
function askWorker(): Promise<WorkerAnswer | null> {
  const worker = navigator.serviceWorker?.controller;
  if (!worker) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), WORKER_ANSWER_MS);
    channel.port1.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      clearTimeout(timer);
      resolve(event.data);
    };
    worker.postMessage({ type: "delegate:sign-out" }, [channel.port2]);
  });
}

/**
 * Before a signed-out page leaves: every Cache Storage entry but the app shell's goes, so
 * the next person on this device reads nothing of this one's chats from a cache. The
 * server's `Clear-Site-Data: "cache"` clears the HTTP cache; this clears what scripts
 * stored. Never throws: a sign-out goes on whatever the caches say.
 */
export async function clearCachedChatData(): Promise<void> {
  if (typeof caches === "undefined") return;
  try {
    const answer = await askWorker();
    const kept = answer?.ok ? answer.kept : undefined;
    const names = await caches.keys();
    await Promise.all(names.filter((name) => name !== kept).map((name) => caches.delete(name)));
  } catch {
    // Storage the browser refuses to open (private mode, a quota error) holds nothing to clear.
  }
}
