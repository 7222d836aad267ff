"use client";

import { useEffect, type RefObject } from "react";

/**
 * Closes a popover the way people expect: Escape (focus goes back to the button that
 * opened it) or a press anywhere outside it and its button. Escape is marked handled, so
 * the chat's own Escape (stop the turn) leaves it alone.
 */
export function useDismiss(
  open: boolean,
  close: () => void,
  panel: RefObject<HTMLElement | null>,
  button: RefObject<HTMLElement | null>,
): void {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      close();
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      const target = e.target as Node;
      if (!panel.current?.contains(target) && !button.current?.contains(target)) close();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open, close, panel, button]);
}
