import { existsSync } from "node:fs";
import { loadEnvFile } from "node:process";
import { startTelemetry, type Telemetry } from "./sdk";

/**
 * Imported first by server/index.ts, so tracing (when OTEL_* turns it on) starts before the
 * modules the HTTP and Socket.IO instrumentations patch are loaded. It reads `.env` itself
 * for the same reason (index.ts reads it again later; a file read twice sets nothing twice).
 * A tracing setup that fails is reported and the app runs untraced: traces are never worth
 * an outage.
 */
function start(): Telemetry | undefined {
  try {
    if (existsSync(".env")) loadEnvFile(".env");
    return startTelemetry();
  } catch (error) {
    process.stderr.write(
      `Tracing is off: the OpenTelemetry SDK did not start (${error instanceof Error ? error.message : String(error)})\n`,
    );
    return undefined;
  }
}

export const telemetry = start();
