"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { AttachmentRef } from "@/lib/contracts";
import { refuseBeforeUpload } from "@/lib/attachments/before-upload";
import { useAppInfo } from "@/components/realtime/use-app-info";
import { deleteAttachment, uploadAttachment } from "./attachment-api";

/**
 * A file in the composer. `held`: waiting for a chat to exist (the home page); `uploading`;
 * `ready`: stored in the chat, its ref known; `failed`: refused (before upload or by the
 * server), with the reason, and nothing stored.
 */
export interface AttachmentDraft {
  key: string;
  name: string;
  size: number;
  state: "held" | "uploading" | "ready" | "failed";
  ref?: AttachmentRef;
  error?: string;
}

export interface AttachmentDrafts {
  items: AttachmentDraft[];
  add(files: readonly File[]): void;
  /** Takes a file back: stops its upload, or removes it from the chat if it landed. */
  remove(key: string): void;
  /** Some upload is still running: sending waits for it. */
  busy: boolean;
  /** The stored attachments' ids, in the order they were added: what the next prompt names. */
  ids: string[];
  /** After a send: the chips leave the composer (the files stay in the chat). */
  clear(): void;
  /** The home page: uploads the held files into the chat just created; their ids, or null when one was refused. */
  uploadHeld(sessionId: string): Promise<string[] | null>;
}

let counter = 0;

/** The composer's files for the chat `sessionId` (uploaded as soon as they are added), or held until a chat exists. */
export function useAttachmentDrafts(sessionId: string | undefined): AttachmentDrafts {
  const maxBytes = useAppInfo()?.attachmentMaxBytes;
  const [items, setItems] = useState<AttachmentDraft[]>([]);
  const files = useRef(new Map<string, File>());
  const uploads = useRef(new Map<string, AbortController>());

  const itemsRef = useRef(items);
  useEffect(() => {
    itemsRef.current = items;
  }, [items]);

  const patch = useCallback((key: string, change: Partial<AttachmentDraft>) => {
    setItems((current) => current.map((item) => (item.key === key ? { ...item, ...change } : item)));
  }, []);

  const upload = useCallback(
    async (chat: string, key: string, file: File): Promise<AttachmentRef | null> => {
      const controller = new AbortController();
      uploads.current.set(key, controller);
      patch(key, { state: "uploading", error: undefined });
      const answer = await uploadAttachment(chat, file, controller.signal);
      uploads.current.delete(key);
      if (controller.signal.aborted) {
        // Taken back while it went up: if it landed anyway, it goes again.
        if (answer.ok) await deleteAttachment(chat, answer.ref.attachmentId);
        return null;
      }
      if (answer.ok) {
        patch(key, { state: "ready", ref: answer.ref, name: answer.ref.name });
        return answer.ref;
      }
      patch(key, { state: "failed", error: answer.message });
      return null;
    },
    [patch],
  );

  const add = useCallback(
    (added: readonly File[]) => {
      const fresh = added.map((file): AttachmentDraft => {
        const key = `a${++counter}`;
        files.current.set(key, file);
        const refused = refuseBeforeUpload(file, maxBytes);
        if (refused) return { key, name: file.name, size: file.size, state: "failed", error: refused };
        return { key, name: file.name, size: file.size, state: sessionId ? "uploading" : "held" };
      });
      setItems((current) => [...current, ...fresh]);
      if (!sessionId) return;
      for (const draft of fresh) if (draft.state === "uploading") void upload(sessionId, draft.key, files.current.get(draft.key)!);
    },
    [maxBytes, sessionId, upload],
  );

  const remove = useCallback(
    (key: string) => {
      const item = itemsRef.current.find((i) => i.key === key);
      uploads.current.get(key)?.abort();
      if (item?.state === "ready" && item.ref && sessionId) void deleteAttachment(sessionId, item.ref.attachmentId);
      setItems((current) => current.filter((i) => i.key !== key));
      files.current.delete(key);
    },
    [sessionId],
  );

  const clear = useCallback(() => {
    setItems([]);
    files.current.clear();
  }, []);

  const uploadHeld = useCallback(
    async (chat: string): Promise<string[] | null> => {
      const ids: string[] = [];
      let refused = false;
      for (const item of itemsRef.current) {
        if (item.state === "ready" && item.ref) ids.push(item.ref.attachmentId);
        if (item.state === "failed") refused = true;
        if (item.state !== "held") continue;
        const ref = await upload(chat, item.key, files.current.get(item.key)!);
        if (ref) ids.push(ref.attachmentId);
        else refused = true;
      }
      return refused ? null : ids;
    },
    [upload],
  );

  // A page left with uploads in flight stops them.
  useEffect(() => {
    const running = uploads.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  return useMemo(
    () => ({
      items,
      add,
      remove,
      clear,
      uploadHeld,
      busy: items.some((i) => i.state === "uploading"),
      ids: items.flatMap((i) => (i.state === "ready" && i.ref ? [i.ref.attachmentId] : [])),
    }),
    [items, add, remove, clear, uploadHeld],
  );
}
