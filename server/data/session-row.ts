import type { SessionSummary } from "@/lib/contracts";

/** A chat's row as the sidebar, search and the session door read it (the fields below only). */
export interface SessionRow {
  _id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

export const SESSION_SUMMARY_FIELDS = { title: 1, createdAt: 1, updatedAt: 1 } as const;

export function toSummary(row: SessionRow): SessionSummary {
  return { sessionId: row._id, title: row.title, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
