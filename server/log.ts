import { hostname } from "node:os";
import pino, { type DestinationStream } from "pino";
import pinoPretty from "pino-pretty";
import { LOG_LEVELS, logEnv, type LogEnv } from "@/lib/env";
import type { Logger } from "@/lib/log";
import { logFormat, type LogFormat } from "@/server/logging/format";
import { traceFields } from "@/server/logging/trace-fields";

export type { Logger };

export type LogLevel = LogEnv["LOG_LEVEL"];

/** The server's logger: the core's three levels, and `debug` for what only LOG_LEVEL=debug shows. */
export interface ServerLogger extends Logger {
  debug(msg: string, meta?: object): void;
  /** What the lines look like: JSON objects, or pretty lines for a person. */
  readonly format: LogFormat;
}

export interface LoggerOptions {
  /** Info and debug suppressed; warnings and errors still written. */
  quiet?: boolean;
  level?: LogLevel;
  format?: LogEnv["LOG_FORMAT"];
  /** NODE_ENV=production: `auto` is JSON even at a terminal. */
  production?: boolean;
  /** Whether stderr is a terminal (for `auto`); read from the process when not given. */
  terminal?: boolean;
  /** This process's name among several (INSTANCE_ID), on every line as `instance`. */
  instance?: string;
  /** Where lines go; stderr when not given (tests pass a stream they read). */
  destination?: DestinationStream | NodeJS.WritableStream;
}

/**
 * Keys pino writes itself, and the trace fields. Metadata with one of these names is
 * written as `meta_<name>`: a second `level` or `msg` in the object would make readers
 * keep whichever comes last.
 */
const RESERVED = new Set(["level", "time", "msg", "pid", "hostname", "instance", "name", "trace_id", "span_id", "trace_flags"]);

/**
 * The server's logger, over pino, to stderr (stdout stays free for scripts). JSON lines
 * carry `level` as its name, `time` in ISO form, `msg`, the metadata's fields and, inside
 * an OpenTelemetry span, `trace_id`, `span_id` and `trace_flags` (docs/logs.md). Every
 * line is written synchronously, pretty ones too (pino-pretty as a stream in this thread,
 * not a worker), so the line a crash writes last is on stderr before the process exits.
 */
export function createLogger(options: LoggerOptions = {}): ServerLogger {
  const format = logFormat(options.format ?? "auto", options.production ?? false, options.terminal ?? process.stderr.isTTY === true);
  const level = options.quiet ? atLeast(options.level ?? "info", "warn") : (options.level ?? "info");
  const logger = pino(
    {
      name: "delegate",
      base: { pid: process.pid, hostname: hostname(), ...(options.instance ? { instance: options.instance } : {}) },
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceFields,
      serializers: { err: pino.stdSerializers.err, error: errorField },
    },
    format === "json" ? jsonStream(options.destination) : prettyStream(options.destination, options.terminal),
  );
  const write = (method: "debug" | "info" | "warn" | "error") => (msg: string, meta?: object) => logger[method](fields(meta), msg);
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), format };
}

/** The logger LOG_LEVEL, LOG_FORMAT and NODE_ENV ask for. */
export function loggerFromEnv(source: Record<string, string | undefined> = process.env, quiet = false): ServerLogger {
  const settings = logEnv(source);
  return createLogger({
    quiet,
    level: settings.LOG_LEVEL,
    format: settings.LOG_FORMAT,
    production: settings.NODE_ENV === "production",
    ...(settings.INSTANCE_ID ? { instance: settings.INSTANCE_ID } : {}),
  });
}

function jsonStream(destination: LoggerOptions["destination"]): DestinationStream | NodeJS.WritableStream {
  return destination ?? pino.destination({ fd: 2, sync: true });
}

function prettyStream(destination: LoggerOptions["destination"], terminal = process.stderr.isTTY === true): NodeJS.WritableStream {
  return pinoPretty({
    destination: destination ?? 2,
    sync: true,
    colorize: destination === undefined && terminal,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,instance,name",
  });
}

function atLeast(level: LogLevel, floor: LogLevel): LogLevel {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(floor) ? level : floor;
}

/** Metadata as pino's merging object: an Error becomes `err` (type, message, stack). */
function fields(meta: object | undefined): object {
  if (meta === undefined) return {};
  if (meta instanceof Error) return { err: meta };
  if (!Object.keys(meta).some((key) => RESERVED.has(key))) return meta;
  return Object.fromEntries(Object.entries(meta).map(([key, value]) => [RESERVED.has(key) ? `meta_${key}` : key, value]));
}

/** `error` is most often a stack already made a string; an Error given there is serialised like `err`. */
function errorField(value: unknown): unknown {
  return value instanceof Error ? pino.stdSerializers.err(value) : value;
}
