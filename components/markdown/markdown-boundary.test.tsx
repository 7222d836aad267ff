import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FORMAT_FAILED_NOTE, MarkdownBoundary } from "./markdown-boundary";

function Boom(): never {
  throw new RangeError("Maximum call stack size exceeded");
}

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * react-dom/server does not run error boundaries (a throw goes to the nearest Suspense
 * boundary, or out), and there is no DOM here for react-dom/client. So these tests take
 * the boundary through the steps React's client renderer takes when a child throws:
 * getDerivedStateFromError, componentDidCatch, render again; and on new props,
 * getDerivedStateFromProps.
 */
function mount(text: string) {
  const boundary = new MarkdownBoundary({ text, children: <Boom /> });
  const throwChild = () => {
    let thrown: unknown;
    try {
      renderToString(<>{boundary.render()}</>);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RangeError);
    boundary.state = { ...boundary.state, ...MarkdownBoundary.getDerivedStateFromError() };
    boundary.componentDidCatch(thrown, { componentStack: "\n    at Boom" });
  };
  const receive = (next: string) => {
    Object.assign(boundary, { props: { text: next, children: <Boom /> } });
    boundary.state = { ...boundary.state, ...MarkdownBoundary.getDerivedStateFromProps(boundary.props, boundary.state) };
  };
  return { boundary, throwChild, receive, html: () => renderToString(<>{boundary.render()}</>) };
}

describe("MarkdownBoundary", () => {
  it("renders its children while they render", () => {
    expect(renderToString(<MarkdownBoundary text="x">fine</MarkdownBoundary>)).toBe("fine");
  });

  it("shows the message's raw text with a note when a child throws, and logs once", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const m = mount("**not** <b>bold</b>");
    m.throwChild();
    const html = m.html();
    expect(html).toContain(FORMAT_FAILED_NOTE);
    expect(html).toContain('<pre data-testid="markdown-plain" class="whitespace-pre-wrap">**not** &lt;b&gt;bold&lt;/b&gt;</pre>');
    expect(error).toHaveBeenCalledTimes(1);

    // The next streamed token fails the same way: still one report for this message.
    m.receive("**not** <b>bold</b> more");
    m.throwChild();
    expect(m.html()).toContain("more</pre>");
    expect(error).toHaveBeenCalledTimes(1);
  });

  it("tries again when the text changes, and not before", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const m = mount("first");
    m.throwChild();
    m.receive("first");
    expect(m.boundary.state.failed).toBe(true);
    m.receive("second");
    expect(m.boundary.state).toEqual({ failed: false, text: "second" });
    // Not failed any more: it renders its children (which throw again here).
    expect(() => m.html()).toThrow(RangeError);
  });
});
