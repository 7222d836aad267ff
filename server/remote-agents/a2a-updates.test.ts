import { TaskState, type Part, type StreamResponse } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { RemoteAgentError } from "@/lib/remote-agents/transport";
import { answerUpdate, partText, remoteState, toRemoteUpdate, UPDATE_TEXT_MAX } from "./a2a-updates";

const HOST = "agents.example.com";

function part(content: Part["content"], extra: Partial<Part> = {}): Part {
  return { content, metadata: undefined, filename: "", mediaType: "", ...extra };
}

const text = (value: string) => part({ $case: "text", value });

function artifactUpdate(parts: Part[]): StreamResponse {
  return {
    payload: {
      $case: "artifactUpdate",
      value: {
        taskId: "t1",
        contextId: "c1",
        artifact: { artifactId: "a1", name: "report", description: "", parts, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    },
  };
}

describe("partText", () => {
  const cases: Array<[string, Part, string]> = [
    ["text as it is", text("Sales rose"), "Sales rose"],
    ["data as JSON", part({ $case: "data", value: { region: "EU", total: 42 } }), '{"region":"EU","total":42}'],
    [
      "a file by URL as a line naming it",
      part({ $case: "url", value: "https://files.example.com/q3.pdf" }, { filename: "q3.pdf", mediaType: "application/pdf" }),
      "[file: q3.pdf (application/pdf) https://files.example.com/q3.pdf]",
    ],
    [
      "a file's bytes by their size, never their content",
      part({ $case: "raw", value: Buffer.from("secret") }),
      "[file: unnamed (unknown type), 6 bytes]",
    ],
    ["an empty part as nothing", part(undefined), ""],
  ];
  it.each(cases)("reads %s", (_, input, expected) => {
    expect(partText(input)).toBe(expected);
  });
});

describe("toRemoteUpdate", () => {
  it("joins text chunks as they are and puts data and files on lines of their own", () => {
    const update = toRemoteUpdate(
      artifactUpdate([text("Sales rose 4 %"), text(" in Q3."), part({ $case: "data", value: [1, 2] }), text("Done.")]),
      HOST,
    );
    expect(update).toMatchObject({
      kind: "artifact",
      artifact: { artifactId: "a1", name: "report", text: "Sales rose 4 % in Q3.\n[1,2]\nDone." },
    });
  });

  it("reads each state by its A2A name, and marks the states after which the stream ends", () => {
    expect(remoteState(TaskState.TASK_STATE_INPUT_REQUIRED)).toBe("input-required");
    expect(remoteState(TaskState.UNRECOGNIZED)).toBe("unknown");
    expect(remoteState(99 as TaskState)).toBe("unknown");
    const status = (state: TaskState): StreamResponse => ({
      payload: {
        $case: "statusUpdate",
        value: { taskId: "t1", contextId: "c1", status: { state, message: undefined, timestamp: undefined }, metadata: undefined },
      },
    });
    expect(toRemoteUpdate(status(TaskState.TASK_STATE_WORKING), HOST)).toEqual({
      kind: "status",
      taskId: "t1",
      contextId: "c1",
      state: "working",
      final: false,
    });
    expect(toRemoteUpdate(status(TaskState.TASK_STATE_REJECTED), HOST)).toMatchObject({ state: "rejected", final: true });
  });

  it("reads a message answer without a task", () => {
    const answer = answerUpdate(
      {
        messageId: "m1",
        contextId: "c1",
        taskId: "",
        role: 2,
        parts: [text("42")],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      HOST,
    );
    expect(answer).toEqual({ kind: "message", contextId: "c1", text: "42" });
  });

  const refused: Array<[string, StreamResponse, RegExp]> = [
    ["an empty payload", {}, /neither a task, a message, a status nor an artifact/],
    [
      "a status without a task id",
      { payload: { $case: "statusUpdate", value: { taskId: "", contextId: "", status: undefined, metadata: undefined } } },
      /without a task id/,
    ],
    ["an artifact without an id", withoutArtifactId(), /artifact without an id/],
    ["a text past 1 MB", artifactUpdate([text("x".repeat(UPDATE_TEXT_MAX)), text("y")]), /more than 1 MB of text/],
  ];
  it.each(refused)("refuses %s with a RemoteAgentError naming the host", (_, response, message) => {
    expect(() => toRemoteUpdate(response, HOST)).toThrow(RemoteAgentError);
    expect(() => toRemoteUpdate(response, HOST)).toThrow(message);
    expect(() => toRemoteUpdate(response, HOST)).toThrow(/at agents\.example\.com/);
  });
});

function withoutArtifactId(): StreamResponse {
  const response = artifactUpdate([text("x")]);
  if (response.payload?.$case === "artifactUpdate" && response.payload.value.artifact) response.payload.value.artifact.artifactId = "";
  return response;
}
