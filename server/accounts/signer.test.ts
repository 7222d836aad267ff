import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSigner } from "./signer";

describe("createSigner", () => {
  const signer = createSigner("s".repeat(32));

  it("signs with HMAC-SHA256 in base64url, so cookies issued before stay valid", () => {
    const expected = createHmac("sha256", "s".repeat(32)).update("payload").digest("base64url");
    expect(signer.sign("payload")).toBe(expected);
    expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("verifies its own signatures only", () => {
    const signature = signer.sign("payload");
    expect(signer.verify("payload", signature)).toBe(true);
    expect(signer.verify("payload2", signature)).toBe(false);
    expect(signer.verify("payload", `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`)).toBe(false);
    expect(signer.verify("payload", signature.slice(1))).toBe(false);
    expect(signer.verify("payload", "")).toBe(false);
    expect(createSigner("t".repeat(32)).verify("payload", signature)).toBe(false);
  });
});
