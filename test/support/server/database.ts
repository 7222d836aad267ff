import { randomUUID } from "node:crypto";
import { inject } from "vitest";

/** A fresh database on the shared test server, unique to the calling test file. */
export function testDatabaseUri(label: string): string {
  const base = new URL(inject("mongoUri"));
  base.pathname = `/${label.replace(/[^a-z0-9]/gi, "_").slice(0, 20)}_${randomUUID().slice(0, 8)}`;
  return base.toString();
}
