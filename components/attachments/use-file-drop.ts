"use client";

import { useCallback, useRef, useState, type ClipboardEvent, type DragEvent } from "react";

const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");

/**
 * Files dropped on, or pasted into, the composer go to `onFiles` (undefined: neither is
 * taken, and the browser does what it does). `dragging` is true while files are held over it.
 */
export function useFileDrop(onFiles: ((files: File[]) => void) | undefined) {
  const [dragging, setDragging] = useState(false);
  // dragenter/dragleave fire for every child crossed; the count says when the pointer left the whole area.
  const depth = useRef(0);

  const onDragEnter = useCallback(
    (e: DragEvent) => {
      if (!onFiles || !hasFiles(e)) return;
      e.preventDefault();
      depth.current += 1;
      setDragging(true);
    },
    [onFiles],
  );
  const onDragOver = useCallback(
    (e: DragEvent) => {
      if (!onFiles || !hasFiles(e)) return;
      // Without this the browser opens the file instead of dropping it here.
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    },
    [onFiles],
  );
  const onDragLeave = useCallback(() => {
    depth.current = Math.max(0, depth.current - 1);
    if (depth.current === 0) setDragging(false);
  }, []);
  const onDrop = useCallback(
    (e: DragEvent) => {
      depth.current = 0;
      setDragging(false);
      if (!onFiles) return;
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length === 0) return;
      e.preventDefault();
      onFiles(files);
    },
    [onFiles],
  );
  const onPaste = useCallback(
    (e: ClipboardEvent) => {
      if (!onFiles) return;
      const files = Array.from(e.clipboardData?.files ?? []);
      // Pasted text stays text; only a paste that carries files is taken as an attachment.
      if (files.length === 0) return;
      e.preventDefault();
      onFiles(files);
    },
    [onFiles],
  );

  return { dragging, dropHandlers: { onDragEnter, onDragOver, onDragLeave, onDrop }, onPaste };
}
