import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError } from "./types";
import { isInGitFolder, resolveInWorkspace } from "./workspace-path";

let outside: string;
let workspace: string;

beforeAll(async () => {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-confine-")));
  workspace = path.join(base, "workspace");
  outside = path.join(base, "outside");
  await mkdir(path.join(workspace, "docs"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, "docs", "a.md"), "inside\n");
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET\n");
  await symlink(path.join(outside, "secret.txt"), path.join(workspace, "leak.txt"));
  await symlink(outside, path.join(workspace, "leakdir"));
  await symlink(path.join(workspace, "docs", "a.md"), path.join(workspace, "alias.md"));
});

afterAll(async () => {
  await rm(path.dirname(workspace), { recursive: true, force: true });
});

async function refusal(requested: string): Promise<string> {
  const error = await resolveInWorkspace(workspace, requested).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected "${requested}" to be refused`).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("resolveInWorkspace", () => {
  it.each([
    ["docs/a.md", "docs/a.md"],
    ["./docs/../docs/a.md", "docs/a.md"],
    ["", "."],
    [".", "."],
    ["docs", "docs"],
    // A link that stays inside the workspace is fine.
    ["alias.md", "docs/a.md"],
  ])("resolves %j inside the workspace", async (requested, expected) => {
    expect(await resolveInWorkspace(workspace, requested)).toBe(path.resolve(workspace, expected));
  });

  it("accepts an absolute path that lies inside the workspace", async () => {
    expect(await resolveInWorkspace(workspace, path.join(workspace, "docs/a.md"))).toBe(path.join(workspace, "docs/a.md"));
  });

  it.each([
    ["../outside/secret.txt", /outside the workspace/],
    ["docs/../../outside/secret.txt", /outside the workspace/],
    ["..", /outside the workspace/],
    ["/etc/passwd", /outside the workspace/],
    ["/proc/self/environ", /\/proc/],
    ["leak.txt", /symbolic link that points outside/],
    ["leakdir/secret.txt", /symbolic link that points outside/],
    ["docs/a.md\0.png", /NUL/],
    ["missing.md", /no file or folder "missing.md"/],
  ])("refuses %j with a clear sentence", async (requested, message) => {
    expect(await refusal(requested)).toMatch(message);
  });

  it("refuses the outside folder even by its absolute path", async () => {
    expect(await refusal(path.join(outside, "secret.txt"))).toMatch(/outside the workspace/);
  });
});

describe("isInGitFolder", () => {
  it.each([
    [".git/hooks/pre-commit", true],
    [".git/config", true],
    [".git", true],
    ["vendor/lib/.git/HEAD", true],
    [".GIT/hooks/x", true],
    [".gitignore", false],
    ["docs/.github/workflows/ci.yml", false],
    ["my.git/x", false],
  ])("%s → %s", (shown, inside) => {
    expect(isInGitFolder(shown)).toBe(inside);
  });
});
