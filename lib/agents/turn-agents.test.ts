import { describe, expect, it } from "vitest";
import { BUILTIN_DEFINITIONS } from "@/lib/agent/definitions";
import { turnDefinitions, type StoredDefinition } from "./turn-agents";

const stored = (id: string, name: string, ownerId: string, shared: boolean): StoredDefinition => ({
  id,
  version: 1,
  ownerId,
  shared,
  definition: { ...BUILTIN_DEFINITIONS[0]!, name },
  updatedAt: "2026-12-03T00:00:00.000Z",
});

const mine = stored("m1", "reviewer", "me", false);
const shared = stored("s1", "reviewer", "admin", true);
const sharedOther = stored("s2", "auditor", "admin", true);
const strangers = stored("x1", "spy", "someone", false);

describe("the definitions a turn adds", () => {
  it.each([
    ["own and shared, shared first so an own one of the same name replaces it", [sharedOther, mine], [], ["s2", "m1"], []],
    ["never another person's private one", [strangers, mine], [], ["m1"], []],
    ["not those the chat turned off", [sharedOther, mine], ["m1"], ["s2"], []],
    ["and names the operator's the chat turned off", [mine], ["operator:explore"], ["m1"], ["explore"]],
  ])("%s", (_what, input, off, ids, offNames) => {
    const result = turnDefinitions(
      input,
      "me",
      off,
      BUILTIN_DEFINITIONS.map((d) => d.name),
    );
    expect(result.add.map((d) => d.id)).toEqual(ids);
    expect(result.offNames).toEqual(offNames);
  });

  it("an own definition comes after a shared one of the same name, so the own one replaces it", () => {
    expect(turnDefinitions([mine, shared], "me", [], []).add.map((d) => d.id)).toEqual(["s1", "m1"]);
  });
});
