import { describe, expect, it } from "vitest";
import { tracingConfig } from "./config";

describe("tracing configuration from OTEL_*", () => {
  it("is off unless an endpoint or a traces exporter is named", () => {
    expect(tracingConfig({}).enabled).toBe(false);
    expect(tracingConfig({ OTEL_SERVICE_NAME: "x" }).enabled).toBe(false);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }).enabled).toBe(true);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }).enabled).toBe(true);
    expect(tracingConfig({ OTEL_TRACES_EXPORTER: "console" }).enabled).toBe(true);
  });

  it("stays off when the SDK is disabled or the exporter is none", () => {
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_SDK_DISABLED: "true" }).enabled).toBe(false);
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h", OTEL_TRACES_EXPORTER: "none" }).enabled).toBe(false);
  });

  it("names the service delegate unless the operator named it", () => {
    expect(tracingConfig({}).serviceName).toBe("delegate");
    expect(tracingConfig({ OTEL_SERVICE_NAME: "chat-eu" }).serviceName).toBeUndefined();
    expect(tracingConfig({ OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,service.name=chat-eu" }).serviceName).toBeUndefined();
    expect(tracingConfig({ OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod" }).serviceName).toBe("delegate");
  });

  it("captures message content only when asked", () => {
    expect(tracingConfig({}).captureContent).toBe(false);
    expect(tracingConfig({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }).captureContent).toBe(true);
  });
});
