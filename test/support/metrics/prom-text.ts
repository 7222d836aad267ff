/**
 * A strict reader of Prometheus's text exposition format (0.0.4), for tests that scrape
 * /metrics: every line must be a `# HELP`, a `# TYPE`, another comment, or a sample whose
 * name, labels and value parse, and every sample must belong to a family a `# TYPE` line
 * declared before it. Anything else throws, naming the line, so a malformed exposition a
 * real Prometheus would reject fails the test. Empty lines are ignored, as the format says.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Family name → its declared type. */
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ["_total", ""],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const lines = text.split("\n");
  // The exposition ends with a line feed: the last piece is empty.
  if (lines.at(-1) !== "") throw new Error("the exposition does not end with a line feed");
  lines.pop();
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    // The format ignores empty lines (prom-client writes one between families).
    if (line === "") return;
    if (line.startsWith("#")) {
      const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
      if (!meta) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`malformed ${line.slice(2, 6)} ${where}`);
        return;
      }
      const [, kind, name, rest] = meta as unknown as [string, "HELP" | "TYPE", string, string];
      if (kind === "HELP") {
        if (help.has(name)) throw new Error(`a second HELP for ${name}, ${where}`);
        help.set(name, unescapeHelp(rest, where));
      } else {
        if (!TYPES.has(rest)) throw new Error(`unknown type ${rest}, ${where}`);
        if (types.has(name)) throw new Error(`a second TYPE for ${name}, ${where}`);
        types.set(name, rest);
      }
      return;
    }
    const sample = parseSample(line, where);
    if (!familyOf(sample.name, types)) throw new Error(`sample of no declared family, ${where}`);
    samples.push(sample);
  });
  return { samples, types, help };
}

function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  for (const [family, type] of types) {
    if (SUFFIXES[type]!.some((suffix) => name === family + suffix)) return family;
  }
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const head = new RegExp(`^(${NAME})`).exec(line);
  if (!head) throw new Error(`no metric name, ${where}`);
  const name = head[1]!;
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === "{") {
    at++;
    while (line[at] !== "}") {
      const label = /^([^=]*)="/.exec(line.slice(at));
      if (!label || !LABEL_NAME.test(label[1]!)) throw new Error(`malformed label, ${where}`);
      at += label[0].length;
      let value = "";
      for (;;) {
        const c = line[at];
        if (c === undefined) throw new Error(`unterminated label value, ${where}`);
        at++;
        if (c === '"') break;
        if (c === "\\") {
          const escaped = line[at++];
          if (escaped === "n") value += "\n";
          else if (escaped === "\\" || escaped === '"') value += escaped;
          else throw new Error(`bad escape in a label value, ${where}`);
        } else value += c;
      }
      if (label[1]! in labels) throw new Error(`label ${label[1]} twice, ${where}`);
      labels[label[1]!] = value;
      if (line[at] === ",") at++;
      else if (line[at] !== "}") throw new Error(`expected , or } after a label, ${where}`);
    }
    at++;
  }
  const rest = /^ (\S+)(?: (-?\d+))?$/.exec(line.slice(at));
  if (!rest) throw new Error(`malformed value or timestamp, ${where}`);
  return { name, labels, value: parseValue(rest[1]!, where) };
}

/**
 * A sample's value. The special values are read regardless of case, as Prometheus reads them
 * (Go's ParseFloat): prom-client writes an event-loop mean with no samples yet as `Nan`.
 */
function parseValue(text: string, where: string): number {
  const special = text.toLowerCase();
  if (special === "+inf" || special === "inf") return Infinity;
  if (special === "-inf") return -Infinity;
  if (special === "nan") return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a number: ${text}, ${where}`);
  return Number(text);
}

function unescapeHelp(text: string, where: string): string {
  return text.replace(/\\(.)/g, (_, c: string) => {
    if (c === "n") return "\n";
    if (c === "\\") return "\\";
    throw new Error(`bad escape in HELP, ${where}`);
  });
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const matching = exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}

/** The sum of every sample named `name` whose labels include `labels`. */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
