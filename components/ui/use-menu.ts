"use client";

import { useCallback, useEffect, type KeyboardEvent, type RefObject } from "react";
import { useDismiss } from "./use-dismiss";

/**
 * A menu button's menu, as the ARIA pattern has it: opening puts focus on the first item,
 * arrow keys move (wrapping), Home and End jump, Tab leaves and closes, Escape or a press
 * outside closes (see useDismiss). Returns the menu's keydown handler.
 */
export function useMenu(
  open: boolean,
  setOpen: (open: boolean) => void,
  menu: RefObject<HTMLElement | null>,
  button: RefObject<HTMLElement | null>,
): (e: KeyboardEvent) => void {
  const close = useCallback(() => setOpen(false), [setOpen]);
  useDismiss(open, close, menu, button);
  const items = useCallback(() => [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])], [menu]);
  useEffect(() => {
    if (open) items()[0]?.focus();
  }, [open, items]);
  return (e) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const move = (i: number) => {
      e.preventDefault();
      list[(i + list.length) % list.length]?.focus();
    };
    if (e.key === "ArrowDown") move(at + 1);
    else if (e.key === "ArrowUp") move(at - 1);
    else if (e.key === "Home") move(0);
    else if (e.key === "End") move(list.length - 1);
    else if (e.key === "Tab") close();
  };
}
