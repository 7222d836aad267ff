/**
 * The one logger type: a message and structured metadata, at three levels. The server
 * writes them to stderr (server/log.ts); the pure core only ever asks for the levels it
 * uses (`Pick<Logger, "warn">`), so tests can hand it a collector.
 */
export interface Logger {
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
  error(msg: string, meta?: object): void;
}
