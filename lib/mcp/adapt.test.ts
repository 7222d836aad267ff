import { describe, expect, it } from "vitest";
import { ToolError } from "@/lib/tools/types";
import { toolMatcher } from "@/lib/agent/tool-patterns";
import { adaptMcpTools, MAX_MCP_OUTPUT_CHARS, mcpResultText, sanitizeInputSchema, type McpCall } from "./adapt";

const server = { name: "files", requireApproval: false as const };
const noCall: McpCall = async () => ({ content: [] });
const ctx = { workspaceDir: "/tmp", signal: new AbortController().signal };

describe("MCP tools as agent tools", () => {
  it("namespaces every tool by its server, so none can take a built-in's name", () => {
    const { tools } = adaptMcpTools(
      server,
      [{ name: "read_file", inputSchema: { type: "object" } }, { name: "file_read" }, { name: "subagent" }],
      noCall,
    );
    expect(tools.map((t) => t.spec.name)).toEqual(["files.read_file", "files.file_read", "files.subagent"]);
  });

  it.each([
    ["<script>alert(1)</script>", "files._script_alert_1_script_"],
    ["<SubagentExecution>", "files._SubagentExecution_"],
    ["read file", "files.read_file"],
    ["a.b/c", "files.a_b_c"],
  ])("sanitises the markup or odd characters in %j, with a warning", (raw, expected) => {
    const { tools, warnings } = adaptMcpTools(server, [{ name: raw }], noCall);
    expect(tools.map((t) => t.spec.name)).toEqual([expected]);
    expect(warnings.join("\n")).toContain("unsafe characters replaced");
  });

  it("skips nameless, meaningless, overlong and colliding names with a warning each, keeping the name that was safe as written", () => {
    const { tools, warnings } = adaptMcpTools(
      server,
      [{ name: "x y" }, { name: "x_y" }, { name: "" }, { name: 42 }, { name: "\u0000" }, { name: "n".repeat(65) }],
      noCall,
    );
    expect(tools.map((t) => t.spec.name)).toEqual(["files.x_y"]);
    expect(tools[0]!.spec.description).toBe('The x_y tool of the MCP server "files".');
    expect(warnings, warnings.join("\n")).toHaveLength(5);
    expect(warnings.join("\n")).toMatch(/skipped the tool x y: its safe name "files.x_y" is taken/);
  });

  it.each([
    { name: "a string", raw: "nope", valid: false },
    { name: "a non-object type", raw: { type: "string" }, valid: false },
    { name: "array properties", raw: { type: "object", properties: ["a"] }, valid: false },
    { name: "a huge schema", raw: { type: "object", description: "x".repeat(70_000) }, valid: false },
    { name: "an object schema", raw: { type: "object", properties: { a: { type: "string" } }, required: ["a"] }, valid: true },
    { name: "a schema without type", raw: { properties: {} }, valid: true },
  ])("keeps valid object schemas and falls back to an any-object schema otherwise: $name", ({ raw, valid }) => {
    const result = sanitizeInputSchema(raw);
    expect(result.ok).toBe(valid);
    expect(result.schema.type).toBe("object");
    if (!valid) expect(result.schema).toEqual({ type: "object" });
  });

  it("joins text blocks and describes the others in a line without inlining them", () => {
    const text = mcpResultText({
      content: [
        { type: "text", text: "one" },
        { type: "image", data: "A".repeat(4000), mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///x", text: "INLINE-SECRET" } },
        { type: "resource_link", uri: "file:///y", name: "y" },
        { type: "video" },
        "junk",
      ],
    });
    expect(text).toBe(
      [
        "one",
        "[image: image/png, 2.9 KB — not shown]",
        "[embedded resource: file:///x, 13 characters of text — not shown]",
        "[resource link: y file:///y]",
        "[a content block of type video — not shown]",
        "[an unreadable content block]",
      ].join("\n"),
    );
  });

  it("caps oversized output and says how much there was", () => {
    const text = mcpResultText({ content: [{ type: "text", text: "x".repeat(MAX_MCP_OUTPUT_CHARS * 3) }] });
    expect(text.length).toBeLessThan(MAX_MCP_OUTPUT_CHARS + 200);
    expect(text.slice(-80)).toMatch(/\[Truncated: showed 262,144 of 786,432 characters\.\]$/);
  });

  it("shows structured content as JSON when a result has no content blocks", () => {
    expect(mcpResultText({ structuredContent: { sum: 3 } })).toBe('{"sum":3}');
  });

  it("turns isError into a ToolError naming the server and the tool", async () => {
    const call: McpCall = async () => ({ isError: true, content: [{ type: "text", text: "disk full" }] });
    const [tool] = adaptMcpTools(server, [{ name: "write" }], call).tools;
    await expect(tool!.run({}, ctx)).rejects.toThrow(
      new ToolError('MCP server "files" answered with an error from files.write: disk full'),
    );
  });

  it("passes the server's own tool name and the arguments through, and refuses arguments that are not an object", async () => {
    const seen: unknown[] = [];
    const call: McpCall = async (name, args) => {
      seen.push([name, args]);
      return { content: [{ type: "text", text: "ok" }] };
    };
    const [tool] = adaptMcpTools(server, [{ name: "read file" }], call).tools;
    expect(await tool!.run(tool!.parse({ path: "a" }), ctx)).toBe("ok");
    expect(seen).toEqual([["read file", { path: "a" }]]);
    expect(() => tool!.parse([1])).toThrow(ToolError);
  });

  it("marks tools as needing approval from the server's requireApproval: all, or by name or pattern", () => {
    const listed = [{ name: "read_file" }, { name: "write_file" }, { name: "edit_file" }];
    const names = (rule: boolean | string[]) =>
      adaptMcpTools({ name: "files", requireApproval: rule }, listed, noCall)
        .tools.filter((t) => t.requiresApproval)
        .map((t) => t.spec.name);
    expect(names(false)).toEqual([]);
    expect(names(true)).toEqual(["files.read_file", "files.write_file", "files.edit_file"]);
    expect(names(["write_*", "edit_file"])).toEqual(["files.write_file", "files.edit_file"]);
  });

  it("without a rule in the config, lets a tool's annotations decide: only read-only or non-destructive tools skip approval", () => {
    const listed = [
      { name: "read", annotations: { readOnlyHint: true } },
      { name: "remove", annotations: { destructiveHint: true } },
      { name: "append", annotations: { readOnlyHint: false, destructiveHint: false } },
      { name: "plain" },
      { name: "odd", annotations: "read only, promise" },
    ];
    const waiting = (rule?: boolean | string[]) =>
      adaptMcpTools({ name: "files", ...(rule !== undefined ? { requireApproval: rule } : {}) }, listed, noCall)
        .tools.filter((t) => t.requiresApproval)
        .map((t) => t.spec.name);
    expect(waiting()).toEqual(["files.remove", "files.plain", "files.odd"]);
    // An explicit rule still wins over what a server says of its tools.
    expect(waiting(false)).toEqual([]);
    expect(waiting(["read"])).toEqual(["files.read"]);
  });
});

describe("allowedTools patterns", () => {
  it("matches exact names and globs like files.*", () => {
    const allowed = toolMatcher(["file_read", "files.*", "web.get_*"]);
    expect(["file_read", "files.read_file", "files.x", "web.get_page"].every(allowed)).toBe(true);
    expect(["grep", "filesystem.read", "web.post", "files", "subagent"].some(allowed)).toBe(false);
  });
});
