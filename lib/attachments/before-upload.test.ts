import { describe, expect, it } from "vitest";
import { refuseBeforeUpload } from "./before-upload";

describe("refuseBeforeUpload", () => {
  it.each([
    [{ name: "notes.txt", size: 10 }, 100, null],
    [{ name: "notes.txt", size: 100 }, 100, null],
    [
      { name: "big.txt", size: 5000 },
      4096,
      '"big.txt" is larger than 4 KiB, the most one attachment may be (ATTACHMENT_MAX_BYTES). Nothing was kept.',
    ],
    [{ name: "../../x.txt", size: 0 }, 4096, '"x.txt" is empty; there is nothing to attach.'],
    [{ name: "any.bin", size: 10 }, undefined, null],
  ])("%j under %s bytes → %s", (file, max, expected) => {
    expect(refuseBeforeUpload(file, max)).toBe(expected);
  });
});
