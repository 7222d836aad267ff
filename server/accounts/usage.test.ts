import { describe, expect, it } from "vitest";
import { sumUsage } from "./usage";

const at = (iso: string) => new Date(iso);

describe("sumUsage", () => {
  it.each([
    {
      name: "an account with nothing has zeros and no activity",
      chats: [],
      turns: [],
      want: { a: { chats: 0, turns: 0, tokens: 0, costUsd: 0, lastActiveAt: null } },
    },
    {
      name: "tokens of the chat and system models add up, cost too, across chats",
      chats: [
        { _id: "s1", ownerId: "a", updatedAt: at("2026-01-01T00:00:00Z") },
        { _id: "s2", ownerId: "a" },
      ],
      turns: [
        {
          sessionId: "s1",
          stats: { chat: { inputTokens: 100, outputTokens: 20 }, system: { inputTokens: 5, outputTokens: 1 }, cost: 0.1 },
        },
        { sessionId: "s2", createdAt: at("2026-02-01T00:00:00Z"), stats: { chat: { inputTokens: 1, outputTokens: 1 }, cost: 0.2 } },
      ],
      want: { a: { chats: 2, turns: 2, tokens: 128, costUsd: 0.3, lastActiveAt: "2026-02-01T00:00:00.000Z" } },
    },
    {
      name: "each account counts only its own chats; turns of unknown chats are ignored",
      chats: [
        { _id: "s1", ownerId: "a" },
        { _id: "s2", ownerId: "b" },
        { _id: "s3", ownerId: "someone else" },
      ],
      turns: [{ sessionId: "s2", stats: { cost: 1 } }, { sessionId: "s3", stats: { cost: 5 } }, { sessionId: "gone" }],
      want: { a: { chats: 1, turns: 0, costUsd: 0 }, b: { chats: 1, turns: 1, costUsd: 1 } },
    },
  ])("$name", ({ chats, turns, want }) => {
    const usage = sumUsage(Object.keys(want), chats, turns);
    for (const [id, expected] of Object.entries(want)) expect(usage.get(id)).toMatchObject(expected);
  });

  it("the last sign-in counts as activity when it is the latest", () => {
    const usage = sumUsage(
      ["a"],
      [{ _id: "s1", ownerId: "a", updatedAt: at("2026-01-01T00:00:00Z") }],
      [],
      new Map([["a", at("2026-03-01T00:00:00Z")]]),
    );
    expect(usage.get("a")?.lastActiveAt).toBe("2026-03-01T00:00:00.000Z");
  });
});
