import { describe, expect, it } from "vitest";
import {
  agentAttributes,
  captureContentFrom,
  chatAttributes,
  chatEndAttributes,
  chatSpanName,
  endReasonErrorType,
  executeToolSpanName,
  invokeAgentSpanName,
  statsAttributes,
  textMessages,
  toolAttributes,
} from "./genai";

describe("GenAI span names and attributes", () => {
  it("names spans as the conventions do: operation, then what it acts on", () => {
    expect(invokeAgentSpanName("explore")).toBe("invoke_agent explore");
    expect(chatSpanName("gpt-4o-mini")).toBe("chat gpt-4o-mini");
    expect(executeToolSpanName("subagent")).toBe("execute_tool subagent");
  });

  it("gives the master the turn as its id and the chat as the conversation", () => {
    expect(agentAttributes({ sessionId: "s1", turnId: "t1", name: "master", runId: null, depth: 0 })).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "master",
      "gen_ai.agent.id": "t1",
      "gen_ai.conversation.id": "s1",
      "delegate.turn.id": "t1",
      "delegate.run.depth": 0,
    });
    expect(
      agentAttributes({
        sessionId: "s1",
        turnId: "t1",
        name: "explore",
        runId: "r2",
        parentRunId: "r1",
        depth: 2,
        version: 3,
        retryOf: "r0",
      }),
    ).toMatchObject({
      "gen_ai.agent.id": "r2",
      "delegate.run.parent_id": "r1",
      "gen_ai.agent.version": "3",
      "delegate.run.retry_of": "r0",
    });
  });

  it("states a run's tokens as stored: chat and system together, and each apart", () => {
    const stats = {
      chat: { inputTokens: 100, outputTokens: 20 },
      system: { inputTokens: 7, outputTokens: 3 },
      steps: 4,
      runtimeMs: 9,
      cost: 0.5,
    };
    expect(statsAttributes(stats)).toEqual({
      "gen_ai.usage.input_tokens": 107,
      "gen_ai.usage.output_tokens": 23,
      "delegate.usage.chat.input_tokens": 100,
      "delegate.usage.chat.output_tokens": 20,
      "delegate.usage.system.input_tokens": 7,
      "delegate.usage.system.output_tokens": 3,
      "delegate.run.steps": 4,
      "delegate.run.cost_usd": 0.5,
    });
  });

  it("marks budget stops, watchdog timeouts and failures as errors, not kills or completions", () => {
    expect(endReasonErrorType("budget_exceeded")).toBe("budget_exceeded");
    expect(endReasonErrorType("watchdog_timeout")).toBe("watchdog_timeout");
    expect(endReasonErrorType("failed")).toBe("failed");
    expect(endReasonErrorType("killed")).toBeUndefined();
    expect(endReasonErrorType("completed")).toBeUndefined();
  });

  it("names the provider and the host a model request goes to", () => {
    expect(chatAttributes({ id: "gpt-4o", label: "gpt-4o via api.example.com", isDemo: false }, "chat")).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o",
      "delegate.model.purpose": "chat",
      "server.address": "api.example.com",
    });
    expect(chatAttributes({ id: "demo", label: "Offline demo model", isDemo: true }, "system")).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "delegate.demo",
      "gen_ai.request.model": "demo",
      "delegate.model.purpose": "system",
    });
    expect(chatEndAttributes({ usage: { inputTokens: 5, outputTokens: 2 }, finishReason: "tool_calls" })).toEqual({
      "gen_ai.usage.input_tokens": 5,
      "gen_ai.usage.output_tokens": 2,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });
    // A provider that reported no usage leaves the figures off rather than zero.
    expect(chatEndAttributes({})).toEqual({});
  });

  it("types MCP tools (server.tool) as extensions and the app's own as functions", () => {
    expect(toolAttributes({ id: "c1", name: "files.read_file" })["gen_ai.tool.type"]).toBe("extension");
    expect(toolAttributes({ id: "c2", name: "read_file" })).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "read_file",
      "gen_ai.tool.call.id": "c2",
      "gen_ai.tool.type": "function",
    });
  });

  it("writes content as the conventions' messages, and captures only on an explicit true", () => {
    expect(JSON.parse(textMessages("assistant", "done", "stop"))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "done" }], finish_reason: "stop" },
    ]);
    expect(captureContentFrom("true")).toBe(true);
    expect(captureContentFrom(" TRUE ")).toBe(true);
    for (const value of [undefined, "", "1", "yes", "false"]) expect(captureContentFrom(value)).toBe(false);
  });
});
