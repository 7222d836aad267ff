import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { parseExposition, sumOf, valueOf } from "./prom-text";

describe("parseExposition", () => {
  it("reads what prom-client writes, escapes included", async () => {
    const registry = new Registry();
    const counter = new Counter({ name: "x_total", help: 'Counts "x"\\ and\nmore.', labelNames: ["tool"], registers: [registry] });
    counter.inc({ tool: 'odd "name"\\\n' }, 2);
    const histogram = new Histogram({ name: "y_seconds", help: "Y.", buckets: [1, 2], registers: [registry] });
    histogram.observe(1.5);
    const parsed = parseExposition(await registry.metrics());
    expect(parsed.types.get("x_total")).toBe("counter");
    expect(parsed.help.get("x_total")).toBe('Counts "x"\\ and\nmore.');
    expect(valueOf(parsed, "x_total", { tool: 'odd "name"\\\n' })).toBe(2);
    expect(valueOf(parsed, "y_seconds_bucket", { le: "+Inf" })).toBe(1);
    expect(valueOf(parsed, "y_seconds_bucket", { le: "1" })).toBe(0);
    expect(sumOf(parsed, "y_seconds_sum")).toBe(1.5);
  });

  it.each([
    ["a sample of no declared family", "# TYPE a counter\nb 1\n"],
    ["a value that is not a number", "# TYPE a gauge\na one\n"],
    ["an unterminated label", '# TYPE a gauge\na{x="1} 1\n'],
    ["a bad label name", '# TYPE a gauge\na{1x="1"} 1\n'],
    ["a bad escape", '# TYPE a gauge\na{x="\\t"} 1\n'],
    ["an unknown type", "# TYPE a thing\n"],
    ["a missing final line feed", "# TYPE a gauge\na 1"],
    ["a line of spaces", "# TYPE a gauge\n \na 1\n"],
    ["two values", "# TYPE a gauge\na 1 2 3\n"],
  ])("refuses %s", (_what, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});
