import type { LogEnv } from "@/lib/env";

export type LogFormat = "json" | "pretty";

/**
 * LOG_FORMAT `auto`: pretty only for a person at a terminal outside production. Anything
 * else (a container, a file, a pipe, a test harness reading the child's stderr) gets one
 * JSON object a line, which a machine can read and `jq` can still show a person.
 */
export function logFormat(setting: LogEnv["LOG_FORMAT"], production: boolean, terminal: boolean): LogFormat {
  if (setting !== "auto") return setting;
  return terminal && !production ? "pretty" : "json";
}
