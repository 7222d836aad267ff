import type { tracing } from "@opentelemetry/sdk-node";

/**
 * A trace as a tree of span names, read from finished spans (the SDK's ReadableSpan) or
 * from Jaeger's API: the tests compare shapes, not ids.
 */
export interface SpanNode {
  name: string;
  spanId: string;
  attributes: Record<string, unknown>;
  children: SpanNode[];
}

export interface FlatSpan {
  name: string;
  spanId: string;
  traceId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
}

export function flatFromSdk(spans: readonly tracing.ReadableSpan[]): FlatSpan[] {
  return spans.map((s) => ({
    name: s.name,
    spanId: s.spanContext().spanId,
    traceId: s.spanContext().traceId,
    parentSpanId: s.parentSpanContext?.spanId,
    attributes: { ...s.attributes },
    events: s.events.map((e) => ({ name: e.name, attributes: { ...(e.attributes ?? {}) } })),
  }));
}

/** The roots of `spans` (spans whose parent is not among them), each with its subtree, children in start order as given. */
export function treeOf(spans: readonly FlatSpan[]): SpanNode[] {
  const nodes = new Map(
    spans.map((s) => [s.spanId, { name: s.name, spanId: s.spanId, attributes: s.attributes, children: [] as SpanNode[] }]),
  );
  const roots: SpanNode[] = [];
  for (const s of spans) {
    const node = nodes.get(s.spanId)!;
    const parent = s.parentSpanId ? nodes.get(s.parentSpanId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** The tree keeping only `invoke_agent` and `execute_tool subagent` spans: the agents' shape. */
export function agentShape(node: SpanNode): unknown {
  const kept = node.children.filter((c) => c.name.startsWith("invoke_agent ") || c.name === "execute_tool subagent");
  return { [node.name]: kept.map(agentShape) };
}

export function childrenNamed(node: SpanNode, prefix: string): SpanNode[] {
  return node.children.filter((c) => c.name.startsWith(prefix));
}

/** Every string anywhere in the spans' attributes and events' attributes. */
export function allStrings(spans: readonly FlatSpan[]): string[] {
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(add);
  };
  for (const s of spans) {
    Object.values(s.attributes).forEach(add);
    for (const e of s.events) Object.values(e.attributes).forEach(add);
    add(s.name);
  }
  return out;
}
