import { describe, expect, it } from "vitest";
import { bearerMatches, isLoopback, metricsAccess, type MetricsRequest } from "./metrics-access";

const local: MetricsRequest = { remoteAddress: "127.0.0.1", authorization: undefined, forwarded: false, hostAllowed: true };
const remote: MetricsRequest = { ...local, remoteAddress: "10.1.2.3" };

describe("isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.9.8.7", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["::FFFF:127.0.0.2", true],
    ["10.0.0.1", false],
    ["128.0.0.1", false],
    ["::ffff:10.0.0.1", false],
    ["::2", false],
    ["fe80::1", false],
    ["localhost", false],
    ["", false],
    [undefined, false],
  ])("%s → %s", (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});

describe("bearerMatches", () => {
  it("accepts exactly the token, in the Bearer scheme", () => {
    expect(bearerMatches("Bearer s3cret-token", "s3cret-token")).toBe(true);
    expect(bearerMatches("bearer   s3cret-token ", "s3cret-token")).toBe(true);
    expect(bearerMatches("Bearer s3cret-toke", "s3cret-token")).toBe(false);
    expect(bearerMatches("Bearer s3cret-tokenX", "s3cret-token")).toBe(false);
    expect(bearerMatches("Basic s3cret-token", "s3cret-token")).toBe(false);
    expect(bearerMatches("s3cret-token", "s3cret-token")).toBe(false);
    expect(bearerMatches("Bearer ", "s3cret-token")).toBe(false);
  });
});

describe("metricsAccess", () => {
  it("lets the loopback interface in without a token, when it names a host of the app's and came through no proxy", () => {
    expect(metricsAccess(local, undefined)).toEqual({ ok: true });
    expect(metricsAccess(local, "tok")).toEqual({ ok: true });
    expect(metricsAccess({ ...local, forwarded: true }, undefined)).toMatchObject({ ok: false, status: 403 });
    expect(metricsAccess({ ...local, hostAllowed: false }, undefined)).toMatchObject({ ok: false, status: 403 });
    expect(metricsAccess({ ...local, forwarded: true }, "tok")).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses anyone else without METRICS_TOKEN, even with a bearer token", () => {
    expect(metricsAccess(remote, undefined)).toMatchObject({ ok: false, status: 403, code: "metrics_local_only" });
    expect(metricsAccess({ ...remote, authorization: "Bearer guess" }, undefined)).toMatchObject({ ok: false, status: 403 });
  });

  it("with METRICS_TOKEN, lets in the right bearer token from anywhere and nothing else", () => {
    expect(metricsAccess({ ...remote, authorization: "Bearer tok" }, "tok")).toEqual({ ok: true });
    expect(metricsAccess({ ...remote, authorization: "Bearer tok", hostAllowed: false, forwarded: true }, "tok")).toEqual({ ok: true });
    expect(metricsAccess(remote, "tok")).toMatchObject({ ok: false, status: 401, code: "token_required" });
    expect(metricsAccess({ ...remote, authorization: "Bearer nope" }, "tok")).toMatchObject({ ok: false, status: 401, code: "bad_token" });
    // A wrong token is wrong from the loopback interface too.
    expect(metricsAccess({ ...local, authorization: "Bearer nope" }, "tok")).toMatchObject({ ok: false, status: 401 });
  });

  it("takes the loopback check it is given (tests play a remote address from 127.0.0.2)", () => {
    const onlyFirst = (address: string | undefined) => address === "127.0.0.1";
    expect(metricsAccess({ ...local, remoteAddress: "127.0.0.2" }, undefined, onlyFirst)).toMatchObject({ ok: false, status: 403 });
  });
});
