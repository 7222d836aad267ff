import { describe, expect, it } from "vitest";
import { createSecretBox, tokenKey } from "./secret-box";

describe("the MCP token seal", () => {
  it("opens what it sealed, never shows the plain text, and refuses another key or a changed byte", () => {
    const box = createSecretBox(tokenKey(undefined, "a-session-secret-of-at-least-32-characters"));
    const sealed = box.seal('{"access_token":"secret-token"}');
    expect(sealed).not.toContain("secret-token");
    expect(box.seal("same")).not.toBe(box.seal("same"));
    expect(box.open(sealed)).toBe('{"access_token":"secret-token"}');
    expect(createSecretBox(tokenKey(undefined, "another-session-secret-of-32-characters!")).open(sealed)).toBeUndefined();
    const [v, nonce, tag, body] = sealed.split(".");
    const flipped = body!.slice(0, -2) + (body!.endsWith("A") ? "B" : "A") + body!.slice(-1);
    expect(box.open([v, nonce, tag, flipped].join("."))).toBeUndefined();
    expect(box.open("not sealed")).toBeUndefined();
  });

  it("uses MCP_TOKEN_KEY when set, and refuses one that is not 32 bytes", () => {
    const key = Buffer.alloc(32, 3).toString("base64");
    expect(tokenKey(key, "ignored-session-secret-of-32-characters!!")).toEqual(Buffer.alloc(32, 3));
    expect(() => tokenKey(Buffer.alloc(16).toString("base64"), "x")).toThrow(/32 bytes/);
  });
});
