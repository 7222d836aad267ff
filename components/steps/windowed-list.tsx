"use client";

import { createContext, Fragment, useContext, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { elementScroll, useVirtualizer } from "@tanstack/react-virtual";
import { registerWindow, type RevealTarget } from "./reveal-window";

/**
 * From this many items a list renders only those near the view. Below it every item is
 * in the DOM, as before windowing: short lists cost little, and find-in-page, printing
 * and the tests see them whole.
 */
export const WINDOW_FROM = 40;
/** Items rendered beyond the visible ones, so a fast scroll or a keystroke finds them there. */
const OVERSCAN = 4;
/** How long after a reveal the window may move the scroll area to settle on the revealed item. */
const REVEAL_SCROLL_MS = 1_500;
/** The view the server renders for (and the first client render, so hydration matches). */
const INITIAL_RECT = { width: 768, height: 900 };

const InWindow = createContext(false);

/**
 * True inside a windowed list's items. They are near the view by construction, so they
 * must not skip their rendering offscreen (`content-visibility: auto`): a skipped item
 * measures as its placeholder size, and the window would lay out the list from that.
 */
export function useInWindow(): boolean {
  return useContext(InWindow);
}

/** What an item spreads on its own root element so the window can measure it. */
export interface MeasureProps {
  ref: (el: HTMLElement | null) => void;
  "data-index": number;
}

export interface WindowedListProps<T> {
  items: readonly T[];
  itemKey: (item: T, index: number) => string | number;
  /** A guess at an item's height in pixels until it is measured. */
  estimateSize: number;
  /** The vertical space between items (the container's `space-y-*`), in pixels. */
  gap: number;
  /** The list element; `"fragment"` leaves short lists without one (their items are the parent's children). */
  as: "ol" | "div" | "fragment";
  /** The element used once the list is windowed, when `as` is a fragment. */
  windowedAs?: "ol" | "div";
  className?: string;
  testId?: string;
  /** Whether an item is on the way to a reveal target (the target is in it or below it). */
  leadsTo?: (item: T, target: RevealTarget) => boolean;
  /** Renders one item; `measure` is set when windowed and goes on the item's root element. */
  children: (item: T, index: number, measure: MeasureProps | undefined) => ReactNode;
}

/**
 * A list of steps or tool calls inside the chat's scroll area. Long lists are windowed
 * with @tanstack/react-virtual on that outer scroll area (the panel itself does not
 * scroll): items keep their normal flow and spacing, and padding above and below stands
 * in for the items out of view, so Chromium's scroll anchoring keeps the reader's place
 * as items are measured. The list's own place in the scroll area moves as the content
 * above it streams; it is read on every scroll and resize.
 *
 * The window moves the scroll area only to bring a revealed item in. Its own corrections
 * are written for a list that is the whole scroll area: here, with the chat's content
 * after the list and the chat following the stream, they scrolled the reader thousands
 * of pixels away when the list shrank as its items were measured.
 */
export function WindowedList<T>(props: WindowedListProps<T>) {
  if (props.items.length < WINDOW_FROM) return <PlainList {...props} />;
  return <Windowed {...props} />;
}

function PlainList<T>({ items, itemKey, as, className, testId, children }: WindowedListProps<T>) {
  const rendered = items.map((item, i) => <Fragment key={itemKey(item, i)}>{children(item, i, undefined)}</Fragment>);
  if (as === "fragment") return <>{rendered}</>;
  const List = as;
  return (
    <List className={className} data-testid={testId}>
      {rendered}
    </List>
  );
}

function Windowed<T>({ items, itemKey, estimateSize, gap, as, windowedAs, className, testId, leadsTo, children }: WindowedListProps<T>) {
  const list = useRef<HTMLElement | null>(null);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  const [margin, setMargin] = useState(0);
  const revealUntil = useRef(0);

  useLayoutEffect(() => {
    const el = list.current;
    const parent = el ? scrollParent(el) : null;
    setScroller(parent);
    if (!el || !parent) return;
    const update = () => {
      const next = Math.round(el.getBoundingClientRect().top - parent.getBoundingClientRect().top + parent.scrollTop);
      setMargin((prev) => (prev === next ? prev : next));
    };
    update();
    parent.addEventListener("scroll", update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(parent.firstElementChild ?? parent);
    return () => {
      parent.removeEventListener("scroll", update);
      observer.disconnect();
    };
  }, []);

  const virtualizer = useVirtualizer<HTMLElement, HTMLElement>({
    count: items.length,
    getScrollElement: () => scroller,
    estimateSize: () => estimateSize,
    getItemKey: (i) => itemKey(items[i]!, i),
    overscan: OVERSCAN,
    gap,
    scrollMargin: margin,
    initialRect: INITIAL_RECT,
    scrollToFn: (offset, options, instance) => {
      if (performance.now() < revealUntil.current) elementScroll(offset, options, instance);
    },
  });
  // Items keep their place in the flow: the browser's scroll anchoring already keeps the
  // reader's place when one above the view changes size; a second correction would jump.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = () => false;

  const latest = useRef({ items, leadsTo, virtualizer });
  latest.current = { items, leadsTo, virtualizer };
  useEffect(
    () =>
      registerWindow((target) => {
        const { items: now, leadsTo: leads, virtualizer: v } = latest.current;
        if (!leads) return;
        const index = now.findIndex((item) => leads(item, target));
        if (index < 0) return;
        if (v.getVirtualItems().some((item) => item.index === index)) return;
        revealUntil.current = performance.now() + REVEAL_SCROLL_MS;
        v.scrollToIndex(index, { align: "center" });
      }),
    [],
  );

  // One props object per index, so memoized items are not re-rendered for a new one.
  const measures = useRef(new Map<number, MeasureProps>());
  const measureOf = (index: number): MeasureProps => {
    let props = measures.current.get(index);
    if (!props) measures.current.set(index, (props = { ref: virtualizer.measureElement, "data-index": index }));
    return props;
  };

  const virtual = virtualizer.getVirtualItems();
  const first = virtual[0];
  const last = virtual[virtual.length - 1];
  const before = first ? first.start - margin : 0;
  const after = last ? Math.max(0, virtualizer.getTotalSize() - (last.end - margin)) : 0;
  const List = as === "fragment" ? (windowedAs ?? "div") : as;
  return (
    <List
      ref={(el: HTMLElement | null) => {
        list.current = el;
      }}
      className={className}
      data-testid={testId}
      data-windowed={items.length}
      style={{ paddingTop: before, paddingBottom: after }}
    >
      <InWindow.Provider value>
        {virtual.map((v) => (
          <Fragment key={v.key}>{children(items[v.index]!, v.index, measureOf(v.index))}</Fragment>
        ))}
      </InWindow.Provider>
    </List>
  );
}

/** The nearest ancestor that scrolls vertically: the chat's message list, a share page's. */
function scrollParent(el: HTMLElement): HTMLElement | null {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (overflowY === "auto" || overflowY === "scroll") return node;
  }
  return document.scrollingElement instanceof HTMLElement ? document.scrollingElement : null;
}
