import { randomBytes } from "node:crypto";

/** URL-safe random ids; they match the `id` pattern of the command schemas. */
export function newId(): string {
  return randomBytes(12).toString("base64url");
}
