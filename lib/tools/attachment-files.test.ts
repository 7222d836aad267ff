import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttachmentRef } from "@/lib/contracts";
import type { AttachmentArea } from "./attachment-area";
import { attachmentTarget } from "./attachment-files";
import { createFileEditTool } from "./file-edit";
import { fileReadTool } from "./file-read";
import { createFileWriteTool } from "./file-write";
import { grepTool } from "./grep";
import { listFilesTool } from "./list-files";
import { ToolError, type Tool, type ToolContext } from "./types";

/**
 * The file tools over a chat's attachments: `attachments/…` reads the area the context
 * carries (here an in-memory one; the real one is tested in server/attachments/), writes
 * there are refused, and no path reaches past the area or from it into the workspace.
 */

const refs: AttachmentRef[] = [
  { attachmentId: "a1", name: "notes.txt", size: 30, type: "text/plain", kind: "text" },
  { attachmentId: "a2", name: "paper.pdf", size: 900, type: "application/pdf", kind: "pdf" },
  { attachmentId: "a3", name: "diagram.png", size: 70, type: "image/png", kind: "image" },
];
const texts: Record<string, string> = {
  "notes.txt": "first line\nthe tide turns at noon\r\nlast line\n",
  "paper.pdf": "[page 1]\nAbstract: tides and moons\n\n[page 2]\nConclusion: noon\n",
  "diagram.png": "diagram.png is a PNG image (70 B) attached to this chat; file_read cannot show its picture.",
};
const area: AttachmentArea = {
  list: () => Promise.resolve(refs),
  read: (name) => Promise.resolve(Object.hasOwn(texts, name) ? texts[name]! : null),
};

let base: string;
let ws: string;
let context: ToolContext;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "delegate-attachments-")));
  ws = path.join(base, "ws");
  await mkdir(path.join(ws, "attachments"), { recursive: true });
  // A workspace folder of the same name is hidden behind the chat's area, never mixed with it.
  await writeFile(path.join(ws, "attachments", "disk.txt"), "on disk\n");
  await writeFile(path.join(ws, "README.md"), "readme noon\n");
  await writeFile(path.join(base, "passwd"), "root:x:0:0\n");
  context = { workspaceDir: ws, signal: new AbortController().signal, attachments: area };
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function call<A>(tool: Tool<A>, args: unknown, ctx = context): Promise<string> {
  return tool.run(tool.parse(args), ctx);
}
async function refusal<A>(tool: Tool<A>, args: unknown): Promise<string> {
  const error = await call(tool, args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("attachmentTarget", () => {
  it.each([
    ["attachments", { name: null }],
    ["attachments/", { name: null }],
    ["./attachments/notes.txt", { name: "notes.txt" }],
    ["attachments//notes.txt", { name: "notes.txt" }],
    ["attachments/a/../notes.txt", { name: "notes.txt" }],
    ["attachments/sub/notes.txt", { name: "sub/notes.txt" }],
    ["attachments/../README.md", null],
    ["attachments/../../etc/passwd", null],
    ["/attachments/notes.txt", null],
    ["attachmentsX/notes.txt", null],
    ["docs/attachments/notes.txt", null],
    ["", null],
  ])("%j → %j", (requested, target) => {
    expect(attachmentTarget(requested)).toEqual(target);
  });
});

describe("file_read on attachments", () => {
  it("reads a text attachment with line numbers, CRLF read as LF", async () => {
    const out = await call(fileReadTool, { path: "attachments/notes.txt" });
    expect(out).toBe("attachments/notes.txt (lines 1-3, end of file):\n1\tfirst line\n2\tthe tide turns at noon\n3\tlast line");
  });

  it("reads a PDF's text, and pages with startLine/endLine", async () => {
    const out = await call(fileReadTool, { path: "attachments/paper.pdf", startLine: 4, endLine: 5 });
    expect(out).toBe("attachments/paper.pdf (lines 4-5, end of file):\n4\t[page 2]\n5\tConclusion: noon");
  });

  it("describes an image in one line", async () => {
    expect(await call(fileReadTool, { path: "attachments/diagram.png" })).toMatch(/1\tdiagram\.png is a PNG image/);
  });

  it("names the chat's attachments when asked for one it does not have", async () => {
    expect(await refusal(fileReadTool, { path: "attachments/disk.txt" })).toBe(
      'There is no attachment "disk.txt" in this chat. Its attachments: "notes.txt", "paper.pdf", "diagram.png".',
    );
  });

  it.each(["attachments/sub/notes.txt", "attachments/notes.txt/..x", "attachments/..%2Fpasswd"])(
    "finds nothing for the path trick %j",
    async (p) => {
      expect(await refusal(fileReadTool, { path: p })).toMatch(/^There is no attachment/);
    },
  );

  it("leaves a path that climbs out of attachments/ to the workspace's own checks", async () => {
    expect(await call(fileReadTool, { path: "attachments/../README.md" })).toMatch(/^README\.md/);
    expect(await refusal(fileReadTool, { path: "attachments/../../passwd" })).toMatch(/leads outside the workspace/);
  });

  it("is the workspace's folder again for a turn without an area", async () => {
    const out = await call(fileReadTool, { path: "attachments/disk.txt" }, { workspaceDir: ws, signal: context.signal });
    expect(out).toMatch(/1\ton disk/);
  });
});

describe("list_files and grep on attachments", () => {
  it("lists the area, read-only, with sizes and kinds", async () => {
    const out = await call(listFilesTool, { path: "attachments/" });
    expect(out.split("\n")).toEqual([
      "Contents of attachments/ (the files attached to this chat, read-only; read one with file_read):",
      "attachments/notes.txt  (30 B, text)",
      "attachments/paper.pdf  (900 B, PDF, read as its text)",
      "attachments/diagram.png  (70 B, image, image/png)",
    ]);
  });

  it("shows the area in the workspace root's listing", async () => {
    expect(await call(listFilesTool, { path: "." })).toMatch(/attachments\/ {2}\(3 files attached to this chat, read-only\)/);
  });

  it("says when the chat has none", async () => {
    const empty: AttachmentArea = { list: () => Promise.resolve([]), read: () => Promise.resolve(null) };
    expect(await call(listFilesTool, { path: "attachments" }, { ...context, attachments: empty })).toMatch(
      /\(no files attached to this chat\)$/,
    );
  });

  it("greps the texts of the attachments, a PDF's included, and skips images", async () => {
    const out = await call(grepTool, { pattern: "noon", path: "attachments" });
    expect(out.split("\n")).toEqual([
      "2 match(es) in 2 file(s) for /noon/ in attachments:",
      "attachments/notes.txt:2: the tide turns at noon",
      "attachments/paper.pdf:5: Conclusion: noon",
      "[Skipped 1 binary file(s).]",
    ]);
  });
});

describe("writes under attachments/", () => {
  const write = createFileWriteTool();
  const edit = createFileEditTool();
  it.each([
    [write, { path: "attachments/x", content: "hi" }],
    [write, { path: "attachments/notes.txt", content: "changed" }],
    [write, { path: "./attachments/new/deep.txt", content: "hi" }],
    [edit, { path: "attachments/notes.txt", old_string: "noon", new_string: "dusk" }],
  ] as [Tool<unknown>, unknown][])("are refused, before any approval is asked (%#)", async (tool, args) => {
    const parsed = tool.parse(args);
    await expect(tool.preview!(parsed, context)).rejects.toThrow(/^attachments are read-only/);
    await expect(tool.run(parsed, context)).rejects.toThrow(/^attachments are read-only/);
    expect(await readdir(path.join(ws, "attachments"))).toEqual(["disk.txt"]);
  });
});
