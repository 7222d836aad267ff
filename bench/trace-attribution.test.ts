import { describe, expect, it } from "vitest";
import { attributeLongTasks, cpuLongTasks, type TraceEvent } from "./trace-attribution";

const PAGE = { pid: 7, tid: 1 };
const OTHER = { pid: 9, tid: 1 };
const ms = (n: number) => n * 1000;

/** A page's renderer with one long task (80 ms on the clock, 30 ms on the CPU) and a short one; another renderer with less work. */
function trace(): TraceEvent[] {
  const x = (name: string, start: number, dur: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({
    name,
    ph: "X",
    ts: ms(start),
    dur: ms(dur),
    ...PAGE,
    ...extra,
  });
  return [
    { name: "thread_name", ph: "M", ts: 0, ...PAGE, args: { name: "CrRendererMain" } },
    { name: "thread_name", ph: "M", ts: 0, ...OTHER, args: { name: "CrRendererMain" } },
    { name: "RunTask", ph: "X", ts: 0, dur: ms(200), ...OTHER },
    x("RunTask", 1, 80, { tdur: ms(30) }),
    x("FunctionCall", 2, 40),
    x("MinorGC", 3, 10),
    x("Layout", 50, 15),
    x("RunTask", 100, 10, { tdur: ms(10) }),
    x("RunTask", 120, 70, { tdur: ms(70) }),
    x("CpuProfiler::StartProfiling", 121, 68),
    { name: "Profile", ph: "P", ts: ms(1), ...PAGE, id: "0x1", args: { data: { startTime: ms(1) } } },
    {
      name: "ProfileChunk",
      ph: "P",
      ts: ms(5),
      ...PAGE,
      id: "0x1",
      args: {
        data: {
          cpuProfile: {
            nodes: [
              { id: 1, callFrame: { functionName: "(root)" } },
              {
                id: 2,
                parent: 1,
                callFrame: { functionName: "render", url: "http://127.0.0.1/_next/static/chunks/page.js", lineNumber: 0, columnNumber: 9 },
              },
              {
                id: 3,
                parent: 2,
                callFrame: { functionName: "parse", url: "http://127.0.0.1/_next/static/chunks/985.js", lineNumber: 0, columnNumber: 99 },
              },
            ],
            samples: [3, 3, 3, 2, 1],
          },
          // The last gap is long: a sample stands for at most 2 ms.
          timeDeltas: [ms(1), ms(1), ms(1), ms(1), ms(150)],
        },
      },
    },
  ];
}

describe("attributeLongTasks", () => {
  it("finds the page's long task and splits its time into self time per event and sampled functions", () => {
    const [task, tracerStart, ...rest] = attributeLongTasks(trace());
    expect(tracerStart).toMatchObject({ startMs: 119, durationMs: 70 });
    expect(rest).toEqual([]);
    expect(task).toMatchObject({ startMs: 0, durationMs: 80, cpuMs: 30 });
    expect(task!.events).toEqual([
      { name: "FunctionCall", selfMs: 30 },
      { name: "RunTask", selfMs: 25 },
      { name: "Layout", selfMs: 15 },
      { name: "MinorGC", selfMs: 10 },
    ]);
    expect(task!.selfFunctions).toEqual([
      { fn: "parse 985.js:1:100", ms: 3 },
      { fn: "render page.js:1:10", ms: 2 },
    ]);
    expect(task!.underFunctions[0]).toEqual({ fn: "render page.js:1:10", ms: 5 });
  });

  it("counts tasks by CPU time, so a task that only waited for a core is not long, nor the tracer's own start", () => {
    expect(cpuLongTasks(trace())).toBe(0);
    expect(cpuLongTasks(trace(), 25)).toBe(1);
    expect(attributeLongTasks(trace(), 5).map((t) => t.durationMs)).toEqual([80, 10, 70]);
  });
});
