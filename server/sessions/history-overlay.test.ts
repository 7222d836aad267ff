import { describe, expect, it } from "vitest";
import { newTurn } from "@/lib/turn/reduce";
import { overlayLiveTurns } from "./history-overlay";

const turn = (turnId: string, prompt: string) => newTurn({ sessionId: "s1", turnId, prompt, createdAt: "2024-01-01T00:00:00.000Z" });

describe("laying the live turns over stored ones", () => {
  const stored = [turn("a", "stored a"), turn("b", "stored b")];
  const live = new Map([
    ["b", turn("b", "live b")],
    ["c", turn("c", "live c")],
  ]);

  it("replaces a stored turn by the one held live and adds the newer ones to the newest page", () => {
    expect(overlayLiveTurns(stored, live, true).map((t) => t.prompt)).toStrictEqual(["stored a", "live b", "live c"]);
  });

  it("adds nothing newer to an older page", () => {
    expect(overlayLiveTurns(stored, live, false).map((t) => t.prompt)).toStrictEqual(["stored a", "live b"]);
  });
});
