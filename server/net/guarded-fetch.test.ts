import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressRefusedError, guardedFetch, ResponseTooLargeError } from "./guarded-fetch";

// Two loopback servers, so a redirect can cross origins; both on the test's allow list.
let first: http.Server;
let second: http.Server;
let firstUrl = "";
let secondUrl = "";
const seenAuthorization: Array<string | undefined> = [];
let releaseStream: () => void = () => undefined;

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  second = http.createServer((request, response) => {
    seenAuthorization.push(request.headers.authorization);
    response.end("second");
  });
  secondUrl = await listen(second);
  first = http.createServer((request, response) => {
    if (request.url === "/to-second") return response.writeHead(302, { location: `${secondUrl}/landed` }).end();
    if (request.url === "/same-origin") return response.writeHead(307, { location: "/echo-auth" }).end();
    if (request.url === "/echo-auth") return response.end(request.headers.authorization ?? "none");
    if (request.url === "/to-private") return response.writeHead(302, { location: "http://10.1.2.3/metadata" }).end();
    if (request.url === "/loop") return response.writeHead(302, { location: "/loop" }).end();
    if (request.url === "/huge") {
      response.writeHead(200, { "content-type": "text/plain" });
      const chunk = "x".repeat(64 * 1024);
      for (let i = 0; i < 64; i++) response.write(chunk);
      return response.end();
    }
    if (request.url === "/stream") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      releaseStream = () => response.end("data: two\n\n");
      return;
    }
    if (request.method === "POST") {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => response.end(`posted ${body}`));
      return;
    }
    response.end("hello");
  });
  firstUrl = await listen(first);
});

afterAll(async () => {
  await new Promise((resolve) => first.close(resolve));
  await new Promise((resolve) => second.close(resolve));
});

const allowed = guardedFetch({ allowHosts: ["127.0.0.1"] });

describe("guardedFetch", () => {
  it("refuses a loopback address that is not on the allow list, before connecting", async () => {
    await expect(guardedFetch()(`${firstUrl}/`)).rejects.toThrow(AddressRefusedError);
    await expect(guardedFetch()(`${firstUrl}/`)).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
  });

  it("refuses a name that resolves to a private address", async () => {
    await expect(guardedFetch()("http://localhost:9/")).rejects.toThrow(/localhost resolves to .*loopback/);
  });

  it("fetches from an allowed host and posts a body", async () => {
    expect(await (await allowed(`${firstUrl}/`)).text()).toBe("hello");
    const posted = await allowed(`${firstUrl}/post`, { method: "POST", body: "payload" });
    expect(await posted.text()).toBe("posted payload");
  });

  it("checks every redirect hop: a redirect to a private address is refused", async () => {
    await expect(allowed(`${firstUrl}/to-private`)).rejects.toThrow(/10\.1\.2\.3 is a private address/);
  });

  it("keeps the authorization header on a same-origin redirect and drops it across origins", async () => {
    const same = await allowed(`${firstUrl}/same-origin`, { headers: { authorization: "Bearer secret" } });
    expect(await same.text()).toBe("Bearer secret");
    const crossed = await allowed(`${firstUrl}/to-second`, { headers: { authorization: "Bearer secret" } });
    expect(await crossed.text()).toBe("second");
    expect(crossed.url).toBe(`${secondUrl}/landed`);
    expect(seenAuthorization).toEqual([undefined]);
  });

  it("gives up on an endless redirect", async () => {
    await expect(guardedFetch({ allowHosts: ["127.0.0.1"], maxRedirects: 3 })(`${firstUrl}/loop`)).rejects.toThrow(/more than 3 times/);
  });

  it("cuts a body past maxBytes with a clear error", async () => {
    const response = await guardedFetch({ allowHosts: ["127.0.0.1"], maxBytes: 256 * 1024 })(`${firstUrl}/huge`);
    await expect(response.text()).rejects.toThrow(ResponseTooLargeError);
  });

  it("streams: the first event can be read before the server ends the response", async () => {
    const response = await allowed(`${firstUrl}/stream`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
    releaseStream();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("data: two\n\n");
  });

  it("fails a streamed body's pending read when the caller aborts, as fetch does", async () => {
    const controller = new AbortController();
    const response = await allowed(`${firstUrl}/stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n");
    const pending = reader.read();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("refuses https-only violations except for allowed hosts", async () => {
    await expect(guardedFetch({ httpsOnly: true })("http://example.invalid/")).rejects.toThrow(/must be reached over https/);
    expect((await guardedFetch({ httpsOnly: true, allowHosts: ["127.0.0.1"] })(`${firstUrl}/`)).status).toBe(200);
  });
});
