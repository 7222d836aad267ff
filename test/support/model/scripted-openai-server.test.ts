import { describe, expect, it, vi } from "vitest";
import { scriptedReply, startScriptedOpenAIServer } from "./scripted-openai-server";

describe("startScriptedOpenAIServer", () => {
  it("listens on loopback only, answers from the script by request, and records bodies", async () => {
    const server = await startScriptedOpenAIServer((request) => scriptedReply({ text: [`echo:${request.body.messages[0].content}`] }));
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "ping" }] }),
    });
    const sse = await response.text();
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(sse).toContain('"content":"echo:ping"');
    expect(sse.trim().endsWith("data: [DONE]")).toBe(true);
    expect(server.requests[0]!.body.model).toBe("m");
    await server.close();
  });

  it("says so when the script runs out, and close() ends hanging requests", async () => {
    const server = await startScriptedOpenAIServer([{ type: "hang" }]);
    const hanging = fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" }).then(
      () => "answered",
      () => "closed",
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    const extra = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" });
    expect(extra.status).toBe(500);
    expect(await extra.text()).toContain("nothing scripted for request #2");
    await server.close();
    expect(await hanging).toBe("closed");
    await expect(fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});
