/**
 * The one result shape of every acknowledged command. Errors carry a stable code the UI
 * can switch on and a sentence a person can read.
 */
export const ERROR_CODES = [
  "bad_request",
  "not_found",
  "unauthorized",
  "forbidden",
  "rate_limited",
  "busy",
  "conflict",
  "limit_reached",
  "too_large",
  "unsupported_type",
  "unavailable",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface Issue {
  path: string;
  message: string;
}

export type Ack<T> = { ok: true; data: T } | { ok: false; code: ErrorCode; message: string; issues?: Issue[] };

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

const MAX_ISSUES = 10;
const MAX_ISSUE_CHARS = 160;
const clip = (text: string) => (text.length > MAX_ISSUE_CHARS ? `${text.slice(0, MAX_ISSUE_CHARS - 1)}…` : text);

/**
 * Validation issues as a person reads them: a few, each short. A hostile payload with
 * 10,000 unknown keys (or one 100 KB key) must not be echoed back as a 100 KB error.
 */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Issue[] {
  return issues.slice(0, MAX_ISSUES).map((i) => ({ path: clip(i.path.map(String).join(".")), message: clip(i.message) }));
}
