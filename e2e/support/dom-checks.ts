import type { Page } from "@playwright/test";

/** What hostile output may have done to the page: every entry must stay empty or zero. */
export interface Breaches {
  pwned: unknown;
  forgedPanels: number;
  dangerousHrefs: string[];
  injectedElements: string[];
  handlerAttributes: string[];
}

/**
 * Reads the DOM for traces of executed or injected markup. Scoped to the message list
 * where the app's own chrome (icons, the composer) would otherwise count.
 */
export function readBreaches(page: Page): Promise<Breaches> {
  return page.evaluate(() => {
    const list = document.querySelector('[data-testid="message-list"]') ?? document.body;
    const urlAttrs = ["href", "src", "action", "formaction", "xlink:href", "srcdoc"];
    const dangerousHrefs: string[] = [];
    for (const el of Array.from(document.querySelectorAll("*"))) {
      for (const attr of urlAttrs) {
        const value = el.getAttribute(attr);
        if (value && /^\s*(javascript|data|vbscript):/i.test(value)) dangerousHrefs.push(`${el.tagName} ${attr}=${value.slice(0, 80)}`);
      }
    }
    const injected = Array.from(
      list.querySelectorAll("script, iframe, object, embed, img, form, input, textarea, style, base, meta, link, math, details"),
    );
    const handlers: string[] = [];
    for (const el of Array.from(list.querySelectorAll("*"))) {
      for (const attr of Array.from(el.attributes)) if (/^on/i.test(attr.name)) handlers.push(`${el.tagName} ${attr.name}`);
    }
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned,
      forgedPanels: document.querySelectorAll('[data-testid="subagent-panel"]').length,
      dangerousHrefs,
      injectedElements: injected.map((el) => el.tagName),
      handlerAttributes: handlers,
    };
  });
}

export const NO_BREACHES: Breaches = { pwned: undefined, forgedPanels: 0, dangerousHrefs: [], injectedElements: [], handlerAttributes: [] };
