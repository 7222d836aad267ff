import { mongo } from "mongoose";
import { describe, expect, it } from "vitest";
import { DocumentTooLargeError, unreachable } from "./document-size";

/**
 * A write the database could not take now is kept and retried until it lands; one it
 * refused is given up at once. Telling them apart decides whether a turn is stored whole
 * after an outage or a failover.
 */
describe("an unreachable database, told from a refusal", () => {
  it("counts the driver's network, selection and closed-server errors as unreachable", () => {
    expect(unreachable(new mongo.MongoNetworkError("connection 3 to 127.0.0.1:27017 closed"))).toBe(true);
    expect(unreachable(new mongo.MongoNetworkTimeoutError("timed out"))).toBe(true);
    expect(unreachable(new mongo.MongoServerClosedError())).toBe(true);
    expect(unreachable(new Error("Operation `turns.insertOne()` buffering timed out after 10000ms"))).toBe(true);
  });

  it("counts a node stepping down or shutting down as unreachable (a replica set's failover)", () => {
    for (const [code, message] of [
      [10107, "not primary"],
      [11600, "interrupted at shutdown"],
      [91, "The server is in quiesce mode and will shut down"],
      [189, "primary stepped down"],
    ] as const) {
      expect(unreachable(new mongo.MongoServerError({ message, code })), message).toBe(true);
    }
    expect(unreachable(new mongo.MongoServerError({ message: "anything", code: 1, errorLabels: ["RetryableWriteError"] }))).toBe(true);
  });

  it("counts what the server refused, or the writer refused to send, as given up", () => {
    expect(unreachable(new mongo.MongoServerError({ message: "E11000 duplicate key error", code: 11000 }))).toBe(false);
    expect(unreachable(new mongo.MongoServerError({ message: "Document failed validation", code: 121 }))).toBe(false);
    expect(unreachable(new mongo.MongoServerError({ message: "BSONObj size is invalid", code: 10334 }))).toBe(false);
    expect(unreachable(new DocumentTooLargeError("a turn", 17_000_000))).toBe(false);
    expect(unreachable(undefined)).toBe(false);
  });
});
