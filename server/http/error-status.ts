import type { ErrorCode } from "@/lib/contracts";

/** Every error code's HTTP status, one place for every route; a new code does not compile until it has one. */
const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  too_large: 413,
  unsupported_type: 415,
  rate_limited: 429,
  busy: 409,
  conflict: 409,
  limit_reached: 429,
  unavailable: 503,
  internal: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS[code];
}
