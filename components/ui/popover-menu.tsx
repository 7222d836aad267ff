"use client";

import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { useDismiss } from "./use-dismiss";
import { useMenu } from "./use-menu";

export interface PopoverMenuProps {
  /**
   * "menu": a menu button's menu (its items are `role="menuitem"`): opening focuses the
   * first item, arrows move. "dialog": a small non-modal panel (a form, a listing).
   */
  kind?: "menu" | "dialog";
  /** The button's content, its accessible name (when the content is an icon), title and test id. */
  button: ReactNode;
  buttonLabel?: string;
  title?: string;
  buttonTestId: string;
  buttonClassName: string;
  /** The panel's accessible name, or the id of the heading that names it. */
  label?: string;
  labelledBy?: string;
  panelTestId?: string;
  panelClassName: string;
  /** A dialog's first focus on opening; without one the panel itself takes it. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** Given when the owner acts on opening (a refresh); otherwise the popover keeps its own state. */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  children: ReactNode | ((close: () => void) => ReactNode);
}

/**
 * The header's popovers, one way: the button toggles the panel (Enter and Space as any
 * button; ArrowDown opens a menu too), Escape closes it back onto the button, a press
 * outside closes it (see useDismiss), and a menu moves with the arrows (see useMenu).
 */
export function PopoverMenu(props: PopoverMenuProps) {
  const { kind = "dialog", initialFocus } = props;
  const [own, setOwn] = useState(false);
  const open = props.open ?? own;
  const onOpenChange = props.onOpenChange;
  const setOpen = useCallback(
    (next: boolean) => {
      setOwn(next);
      onOpenChange?.(next);
    },
    [onOpenChange],
  );
  const close = useCallback(() => setOpen(false), [setOpen]);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const menu = kind === "menu";

  const onMenuKey = useMenu(menu && open, setOpen, panel, button);
  useDismiss(!menu && open, close, panel, button);
  useEffect(() => {
    if (!menu && open) (initialFocus?.current ?? panel.current)?.focus();
  }, [menu, open, initialFocus]);

  const onButtonKey = (e: KeyboardEvent) => {
    if (menu && e.key === "ArrowDown" && !open) {
      e.preventDefault();
      setOpen(true);
    }
  };

  return (
    <div className="relative">
      <button
        ref={button}
        type="button"
        onClick={() => setOpen(!open)}
        onKeyDown={onButtonKey}
        aria-haspopup={kind}
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-label={props.buttonLabel}
        title={props.title}
        data-testid={props.buttonTestId}
        className={props.buttonClassName}
      >
        {props.button}
      </button>
      {open ? (
        <div
          ref={panel}
          id={panelId}
          role={kind}
          aria-label={props.label}
          aria-labelledby={props.labelledBy}
          tabIndex={menu || initialFocus ? undefined : -1}
          onKeyDown={menu ? onMenuKey : undefined}
          data-testid={props.panelTestId}
          className={props.panelClassName}
        >
          {typeof props.children === "function" ? props.children(close) : props.children}
        </div>
      ) : null}
    </div>
  );
}
