import { describe, expect, it } from "vitest";
import { CHAT_ACTIONS, can, refusal, type ChatAction } from "./can";

const ALL = Object.keys(CHAT_ACTIONS) as ChatAction[];
const READ: ChatAction[] = ["read", "export"];
const ACT: ChatAction[] = ["send", "cancel", "steer", "kill", "retry", "decide", "answer", "upload"];
const MANAGE: ChatAction[] = ["branch", "fork", "rename", "delete", "members", "share", "settings"];

describe("can(role, action)", () => {
  it("sorts every action into reading, acting or managing", () => {
    expect([...READ, ...ACT, ...MANAGE].sort()).toEqual([...ALL].sort());
  });

  it.each(ALL)("the owner may %s", (action) => {
    expect(can("owner", action)).toBe(true);
  });

  it.each(READ)("every member may %s", (action) => {
    expect(can("viewer", action)).toBe(true);
    expect(can("collaborator", action)).toBe(true);
  });

  it.each(ACT)("a collaborator may %s, a viewer may not", (action) => {
    expect(can("collaborator", action)).toBe(true);
    expect(can("viewer", action)).toBe(false);
  });

  it.each(MANAGE)("only the owner may %s", (action) => {
    expect(can("collaborator", action)).toBe(false);
    expect(can("viewer", action)).toBe(false);
  });

  it("words a refusal as the person reads it", () => {
    expect(refusal("viewer", "send")).toBe("forbidden: a viewer cannot send prompts");
    expect(refusal("collaborator", "members")).toBe("forbidden: a collaborator cannot manage this chat's members");
  });
});
