import { context, propagation } from "@opentelemetry/api";

/**
 * The request's init with the active trace context's headers (`traceparent`, and
 * `tracestate` or `baggage` when set) added by the global propagator. Without an SDK the
 * propagator is the API's no-op and the init is returned as it came.
 */
export function withTraceContext(init: RequestInit | undefined): RequestInit | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (Object.keys(carrier).length === 0) return init;
  const headers = new Headers(init?.headers);
  for (const [name, value] of Object.entries(carrier)) if (!headers.has(name)) headers.set(name, value);
  return { ...init, headers };
}

/** The active trace context as plain headers, for a request built elsewhere (the model adapter's). */
export function traceHeaders(ctx = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}
