import { describe, expect, it } from "vitest";
import { branchTree, branchView, newestLeaf, pathTo, recordedParent } from "./branch-tree";

describe("branchTree", () => {
  it("reads a chat from before branches (no parent named anywhere) as one branch", () => {
    const tree = branchTree([{ turnId: "a" }, { turnId: "b" }, { turnId: "c" }]);
    expect(pathTo(tree, "c")).toEqual(["a", "b", "c"]);
    expect(branchView(tree, undefined)).toEqual({ path: ["a", "b", "c"], siblings: {} });
  });

  it("places an edit beside the turn it replaces, and a turn after a switch back where it was sent", () => {
    // a → b; b' edits b (parent a); then back on b's branch, c follows b.
    const tree = branchTree([{ turnId: "a" }, { turnId: "b" }, { turnId: "b2", parentTurnId: "a" }, { turnId: "c", parentTurnId: "b" }]);
    expect(branchView(tree, "b2")).toEqual({ path: ["a", "b2"], siblings: { b2: ["b", "b2"] } });
    expect(branchView(tree, "b")).toEqual({ path: ["a", "b", "c"], siblings: { b: ["b", "b2"] } });
    expect(newestLeaf(tree, "a")).toBe("b2");
    expect(newestLeaf(tree, "b")).toBe("c");
    // Without a turn last viewed: the newest turn's branch.
    expect(branchView(tree, undefined).path).toEqual(["a", "b", "c"]);
    expect(branchView(tree, "gone").path).toEqual(["a", "b", "c"]);
  });

  it("makes an edited first prompt a new first turn, and a turn whose parent is unknown a first turn too", () => {
    const tree = branchTree([{ turnId: "a" }, { turnId: "a2", parentTurnId: null }, { turnId: "x", parentTurnId: "deleted" }]);
    expect(pathTo(tree, "a2")).toEqual(["a2"]);
    expect(pathTo(tree, "x")).toEqual(["x"]);
    expect(branchView(tree, "a").siblings).toEqual({ a: ["a", "a2", "x"] });
  });

  it("records a parent only when the new turn does not follow the newest one", () => {
    const tree = branchTree([{ turnId: "a" }, { turnId: "b" }]);
    expect(recordedParent(tree, "b")).toEqual({});
    expect(recordedParent(tree, "a")).toEqual({ parentTurnId: "a" });
    expect(recordedParent(tree, null)).toEqual({ parentTurnId: null });
    expect(recordedParent(branchTree([]), null)).toEqual({});
  });
});
