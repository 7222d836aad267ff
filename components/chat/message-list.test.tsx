import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ChatTurn } from "@/lib/contracts";
import { newTurn } from "@/lib/turn/reduce";
import { MessageList } from "./message-list";
import type { OlderTurns } from "./use-session";

const turns = (n: number): ChatTurn[] =>
  Array.from({ length: n }, (_, i) => ({
    ...newTurn({ sessionId: "s1", turnId: `t${i}`, prompt: `prompt ${i}`, createdAt: "2026-01-01T00:00:00.000Z" }),
    steps: [{ text: `answer ${i}`, thinking: "", toolCalls: [] }],
    status: "completed" as const,
  }));
const older = (state: Partial<OlderTurns>): OlderTurns => ({ hasMore: true, loading: false, error: null, load: () => undefined, ...state });
const render = (list: ChatTurn[], more?: OlderTurns) => renderToString(<MessageList turns={list} pending={[]} older={more} />);
/** The one button above the turns: its label, and whether it is marked busy. */
const button = (html: string) => /<button[^>]*data-testid="load-earlier"([^>]*)>(.*?)<\/button>/.exec(html);

describe("the line above a paged history, as rendered", () => {
  it("offers a button to load earlier turns while the server has some", () => {
    const found = button(render(turns(3), older({})));
    expect(found?.[2]).toBe("Load earlier turns");
    expect(found?.[1]).not.toContain(`aria-disabled="`);
  });

  it("says it is loading, with the button kept (busy) so keyboard focus stays on it", () => {
    const html = render(turns(3), older({ loading: true }));
    const found = button(html);
    expect(found?.[2]).toContain("Loading earlier turns…");
    expect(`${found?.[0]}`).toContain('aria-disabled="true"');
    expect(html).not.toContain('role="alert"');
  });

  it("says why a page failed, and the button tries again", () => {
    const html = render(turns(3), older({ error: "Not connected" }));
    expect(html).toMatch(/role="alert"[^>]*>.*Could not load earlier turns: .*Not connected/);
    expect(button(html)?.[2]).toBe("Try again");
  });

  it("shows nothing above the first turn once every turn is loaded", () => {
    const html = render(turns(3), older({ hasMore: false }));
    expect(html).not.toContain('data-testid="earlier-turns"');
    expect(html.match(/data-testid="message-user"/g)).toHaveLength(3);
  });

  it("renders the newest 12 loaded turns and offers the rest held back before asking the server", () => {
    const html = render(turns(40), older({}));
    expect(button(html)?.[2]).toBe("Show 28 earlier turns");
    expect(html.match(/data-testid="message-user"/g)).toHaveLength(12);
    expect(html).toContain("prompt 39");
    expect(html).toContain("prompt 28");
    expect(html).not.toContain("prompt 27<");
  });
});
