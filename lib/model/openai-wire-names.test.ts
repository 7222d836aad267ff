import { afterEach, describe, expect, it } from "vitest";
import { scriptedReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from "@/test/support/model/scripted-openai-server";
import { createOpenAIModel } from "./openai-adapter";
import { wireToolNames } from "./openai-wire";
import type { ChatMessage, ModelStreamEvent, ToolSpec } from "./types";

/**
 * MCP tools are named `server.tool`, which OpenAI refuses as a function name
 * (`^[a-zA-Z0-9_-]{1,64}$`). The adapter sends safe stand-ins, in the tool list and in
 * the history, and maps the model's calls back; checked on the real wire.
 */

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const spec = (name: string): ToolSpec => ({ name, description: name, parameters: { type: "object" } });
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("tool names on the OpenAI wire", () => {
  it("sends safe, unique names for tools and history, and maps the model's call back to the real tool", async () => {
    server = await startScriptedOpenAIServer(() =>
      scriptedReply({
        toolCalls: [
          { id: "c2", name: "files_read_file_2", argumentChunks: ['{"path":', '"a.txt"}'] },
          { id: "c3", name: "files_read_file", argumentChunks: ["{}"] },
        ],
      }),
    );
    const model = createOpenAIModel({ baseURL: server.url, model: "m", timeoutMs: 5_000, maxRetries: 0 });
    const messages: ChatMessage[] = [
      { role: "user", content: "read it" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "files.read_file", arguments: '{"path":"b.txt"}' }] },
      { role: "tool", toolCallId: "c1", toolName: "files.read_file", content: "B" },
    ];
    const events: ModelStreamEvent[] = [];
    for await (const event of model.stream({
      messages,
      tools: [spec("files.read_file"), spec("files_read_file"), spec("x".repeat(70)), spec("file_read")],
    }))
      events.push(event);

    const body = server.requests[0]!.body;
    const toolNames = body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(toolNames).toEqual(["files_read_file_2", "files_read_file", "x".repeat(56), "file_read"]);
    expect(toolNames.every((n: string) => WIRE_NAME.test(n))).toBe(true);
    expect(body.messages[1].tool_calls[0].function.name).toBe("files_read_file_2");

    const calls = events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: "c2", name: "files.read_file", arguments: '{"path":"a.txt"}' },
      { id: "c3", name: "files_read_file", arguments: "{}" },
    ]);
  });

  it("leaves names that already fit exactly as they are", () => {
    const names = wireToolNames([spec("file_read"), spec("subagent")], []);
    expect(["file_read", "subagent"].map(names.toWire)).toEqual(["file_read", "subagent"]);
    expect(names.fromWire("unknown_name")).toBe("unknown_name");
  });

  it("maps a name that appears only in the history (a server gone since) reversibly too", () => {
    const names = wireToolNames(
      [],
      [{ role: "assistant", content: "", toolCalls: [{ id: "1", name: "<b>gone.tool</b>", arguments: "{}" }] }],
    );
    const wire = names.toWire("<b>gone.tool</b>");
    expect(wire).toMatch(WIRE_NAME);
    expect(names.fromWire(wire)).toBe("<b>gone.tool</b>");
  });
});
