import type { ReactElement } from "react";

/**
 * Rendered markdown blocks by their text, least recently used first out. A settled block
 * is parsed once however many times it mounts: when a subagent answers, its streamed
 * step gives way to the Response section with the same words, and a reload or a chat
 * switch mounts the same messages again. Bounded by characters, so a long session
 * cannot grow it without limit; only settled blocks enter it (the streaming block changes
 * with every token and would only churn it).
 */
export class BlockCache {
  private readonly entries = new Map<string, { element: ReactElement; chars: number }>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): ReactElement | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-insert: a Map iterates in insertion order, so the first key is the least recent.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.element;
  }

  set(key: string, element: ReactElement): void {
    if (key.length > this.maxChars) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.chars -= old.chars;
    }
    this.entries.set(key, { element, chars: key.length });
    this.chars += key.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.chars;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
