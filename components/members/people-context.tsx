"use client";

import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { ChatMembers } from "@/lib/contracts";

/**
 * The names of a chat's people, by account id, for the views that say who did what (a
 * prompt's sender, an approval's decider). Empty outside a chat with members: those views
 * then say nothing of who, as before members existed.
 */
const PeopleContext = createContext<ReadonlyMap<string, string>>(new Map());

export function PeopleProvider({ members, children }: { members: ChatMembers | null; children: ReactNode }) {
  // A chat of one person names nobody: "you" sent every prompt.
  // Changes only with the people: every prompt and panel reads it, and tokens stream past many times a second.
  const names = useMemo(
    () => new Map(members && members.people.length > 1 ? members.people.map((p) => [p.accountId, p.name] as const) : []),
    [members],
  );
  return <PeopleContext.Provider value={names}>{children}</PeopleContext.Provider>;
}

/** The name of the account `id`, when the chat has members and knows it. */
export function usePersonName(id: string | undefined): string | undefined {
  const names = useContext(PeopleContext);
  return id === undefined ? undefined : names.get(id);
}
