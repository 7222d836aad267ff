/**
 * The one result shape of every acknowledged command. Errors carry a stable code the UI
 * can switch on and a sentence a person can read.
 */
export const ERROR_CODES = [
  "bad_request",
  "not_found",
  "unauthorized",
  "rate_limited",
  "busy",
  "too_large",
  "unavailable",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface Issue {
  path: string;
  message: string;
}

export type Ack<T> =
  | { ok: true; data: T }
  | { ok: false; code: ErrorCode; message: string; issues?: Issue[] };

export type AckCallback<T> = (result: Ack<T>) => void;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: Issue[],
  ) {
    super(message);
    this.name = "AppError";
  }
}

export function ok<T>(data: T): Ack<T> {
  return { ok: true, data };
}
