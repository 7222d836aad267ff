"use client";

import { Fragment, memo, useDeferredValue, useMemo } from "react";
import ReactMarkdown, { type Components, type ExtraProps } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CopyButton } from "@/components/ui/copy-button";
import { codeLanguage, hastText } from "./hast-text";
import { MarkdownBoundary } from "./markdown-boundary";
import { BlockCache } from "./block-cache";
import { splitBlocks } from "./blocks";
import { isTooDeeplyNested } from "./nesting";
import { PlainText } from "./plain-text";
import { safeUrl } from "./safe-url";

/** Above this many characters highlighting is skipped: lowlight on a huge blob freezes the tab. */
const HIGHLIGHT_MAX_CHARS = 100_000;

/**
 * Above this many characters the text is shown as plain text, never parsed: parsing grows
 * worse than linearly (mixed prose, lists, tables and code in Node 20: 0.8 s at 100 KB,
 * 2 s at 200 KB, 30 s at 1 MB), streaming re-parses the whole text on every token, and a
 * message this long is a dump rather than prose.
 */
const MARKDOWN_MAX_CHARS = 200_000;

const remarkPlugins = [remarkGfm];
/**
 * rehype-highlight builds a lowlight and registers its ~37 languages every time a
 * processor is frozen, which react-markdown does on every render: measured at a fifth of
 * a reload's script time. Its transform keeps no state, so one serves every render.
 */
const highlightTransform = rehypeHighlight({ detect: false });
function sharedHighlight() {
  return highlightTransform;
}
const highlightPlugins = [sharedHighlight] as NonNullable<Parameters<typeof ReactMarkdown>[0]["rehypePlugins"]>;
const noPlugins: typeof highlightPlugins = [];

function CodeBlock({ node, children, ...rest }: React.ComponentProps<"pre"> & ExtraProps) {
  const text = node ? hastText(node) : "";
  const lang = node ? codeLanguage(node) : null;
  return (
    <div className="code-block overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800">
      <div className="flex items-center justify-between border-b border-zinc-200 bg-zinc-50 py-0.5 pr-1 pl-3 text-xs text-zinc-600 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400">
        <span className="font-mono">{lang ?? "text"}</span>
        <CopyButton text={text} label="Copy code" showLabel />
      </div>
      <pre {...rest} className="!rounded-none !border-0">
        {children}
      </pre>
    </div>
  );
}

function Link({ href, children }: React.ComponentProps<"a"> & ExtraProps) {
  if (!href) return <span>{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/** Remote images are shown as links, not loaded: a model should not be able to make the browser fetch a tracking URL. */
function Image({ src, alt }: React.ComponentProps<"img"> & ExtraProps) {
  const label = `[image${alt ? `: ${alt}` : ""}]`;
  if (typeof src !== "string" || !src) return <span>{label}</span>;
  return (
    <a href={src} target="_blank" rel="noopener noreferrer">
      {label}
    </a>
  );
}

function Table({ node: _node, ...rest }: React.ComponentProps<"table"> & ExtraProps) {
  return (
    <div className="table-wrap">
      <table {...rest} />
    </div>
  );
}

const components: Components = { pre: CodeBlock, a: Link, img: Image, table: Table };

function urlTransform(url: string): string | null {
  return safeUrl(url);
}

export interface MarkdownProps {
  text: string;
  className?: string;
  /** Draws a caret after the last character while the text is still arriving. */
  streaming?: boolean;
}

/**
 * Markdown for untrusted text: GFM tables and highlighted code, but never raw HTML —
 * without rehype-raw, HTML in the source is rendered as literal text.
 *
 * Rendered block by block (see splitBlocks): a block that a later one follows is settled,
 * its render memoised, so a streamed token re-parses only the last block. Highlighting
 * waits until a block settles or the stream ends: lowlight on a growing code block is the
 * costliest part of a token, and colours appearing a moment later go unnoticed.
 */
export const Markdown = memo(function Markdown({ text, className = "", streaming = false }: MarkdownProps) {
  // Deferring lets a keystroke or a scroll interrupt a render of streamed text. The body is
  // memoised on the deferred text, so the urgent render (new text, old deferred text) reuses
  // the previous element and parses nothing. Settled text is never deferred, so a finished
  // message is complete when it says so.
  const deferredText = useDeferredValue(text);
  const deferred = streaming ? deferredText : text;
  const body = useMemo(() => <MarkdownBody text={deferred} streaming={streaming} />, [deferred, streaming]);
  return (
    <div className={`markdown ${streaming ? "markdown-streaming" : ""} ${className}`}>
      {body}
      {streaming && deferred.length === 0 ? <span className="stream-caret" aria-hidden="true" /> : null}
    </div>
  );
});

function MarkdownBody({ text, streaming }: { text: string; streaming: boolean }) {
  const unformattable = whyNotFormatted(text);
  if (unformattable) return <PlainText text={text} note={`Shown as plain text: ${unformattable}.`} />;
  const blocks = splitBlocks(text);
  const highlight = text.length <= HIGHLIGHT_MAX_CHARS;
  const last = blocks.length - 1;
  return (
    <MarkdownBoundary text={text}>
      {blocks.map((block, i) => (
        <Fragment key={i}>
          {i > 0 ? BLOCK_SEPARATOR : null}
          <MarkdownBlock text={block} highlight={highlight && (!streaming || i < last)} />
        </Fragment>
      ))}
    </MarkdownBoundary>
  );
}

/** What remark-rehype puts between a root's children: kept so the DOM matches a whole-text render. */
const BLOCK_SEPARATOR = "\n";

/** Rendered settled blocks of every message: about 2 MB of source text. */
const settledBlocks = new BlockCache(2_000_000);

/**
 * One block; memoised on its text, so a settled block is parsed once per mount, and
 * cached, so it is parsed once however often it mounts. react-markdown's component is a
 * pure function of its props (no hooks), called here directly to keep its output.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text, highlight }: { text: string; highlight: boolean }) {
  if (!highlight) return renderBlock(text, noPlugins);
  const key = text;
  const cached = settledBlocks.get(key);
  if (cached) return cached;
  const element = renderBlock(text, highlightPlugins);
  settledBlocks.set(key, element);
  return element;
});

function renderBlock(text: string, rehypePlugins: typeof highlightPlugins) {
  return ReactMarkdown({ children: text, remarkPlugins, rehypePlugins, components, urlTransform });
}

/** Why text is shown as plain text instead of being parsed (so it cannot overflow the stack), or null. */
function whyNotFormatted(text: string): string | null {
  if (text.length > MARKDOWN_MAX_CHARS) return "too long to format";
  if (isTooDeeplyNested(text)) return "too deeply nested to format";
  return null;
}
