import { describe, expect, it } from "vitest";
import { chooseEmbeddedEngine } from "./embedded";

describe("chooseEmbeddedEngine", () => {
  it.each([
    ["auto", true, true, "mongod"],
    ["auto", true, false, "mongod"],
    ["auto", false, true, "mongo-java-server"],
    ["auto", false, false, "mongod"],
    ["mongod", false, true, "mongod"],
    ["mongo-java-server", true, false, "mongo-java-server"],
  ] as const)("requested %s, mongod on machine %s, java %s → %s", (requested, mongodOnMachine, javaOnMachine, expected) => {
    expect(chooseEmbeddedEngine({ requested, mongodOnMachine, javaOnMachine })).toBe(expected);
  });
});
