import { captureContentFrom } from "@/lib/telemetry/genai";

/**
 * Whether traces are on, read from the standard OTEL_* variables and nothing else: on when
 * an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or a
 * traces exporter (OTEL_TRACES_EXPORTER, other than "none") is named, off with
 * OTEL_SDK_DISABLED=true. Everything else (protocol, headers, sampler, resource) the SDK
 * reads itself.
 */
export interface TracingConfig {
  enabled: boolean;
  /** The resource's service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
  serviceName?: string;
  captureContent: boolean;
}

export const DEFAULT_SERVICE_NAME = "delegate";

export function tracingConfig(env: Record<string, string | undefined>): TracingConfig {
  const set = (name: string) => (env[name] ?? "").trim() !== "";
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const disabled = (env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true" || exporters.includes("none");
  const enabled = !disabled && (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") || exporters.length > 0);
  const named = set("OTEL_SERVICE_NAME") || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "");
  return {
    enabled,
    ...(named ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    captureContent: captureContentFrom(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
  };
}
