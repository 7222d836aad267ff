import { isSpanContextValid, trace } from "@opentelemetry/api";

export interface TraceFields {
  trace_id?: string;
  span_id?: string;
  trace_flags?: string;
}

/**
 * The active span's ids, the fields that join a log line to its trace. With no tracer
 * registered (or outside any span) `getActiveSpan` finds nothing, or a span whose ids are
 * all zeros, and the line carries none of them. Names and the two-digit hex flags are the
 * ones OpenTelemetry's log data model uses, so a collector reads them without mapping.
 */
export function traceFields(): TraceFields {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  if (!isSpanContextValid(context)) return {};
  return {
    trace_id: context.traceId,
    span_id: context.spanId,
    trace_flags: context.traceFlags.toString(16).padStart(2, "0"),
  };
}
