/**
 * Reads the text the workspace tools return (list_files, grep, file_read) and the narrative
 * results of subagents, so the offline demo model can act on what it was actually given.
 * Lenient by design: a line it does not recognise is skipped, never an error.
 */

export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

const GREP_LINE = /^(.+?):(\d+): (.*)$/;
const SIZE_SUFFIX = /\s{2}\(.*\)$/;
const READ_HEADER = /^(.+?) \(lines \d+-\d+(, end of file)?.*\):$/;
const READ_LINE = /^(\d+)\t(.*)$/;

/** File paths from a list_files listing (folders and notes skipped). */
export function parseListing(output: string): string[] {
  return output
    .split("\n")
    .slice(1)
    .map((line) => line.trim().replace(SIZE_SUFFIX, ""))
    .filter((name) => name.length > 0 && !name.endsWith("/") && !name.startsWith("[") && !name.startsWith("("));
}

export function parseGrep(output: string): GrepHit[] {
  const hits: GrepHit[] = [];
  for (const line of output.split("\n")) {
    const m = GREP_LINE.exec(line);
    if (m) hits.push({ path: m[1]!, line: Number(m[2]), text: m[3]! });
  }
  return hits;
}

export interface FileRead {
  path: string;
  lines: { number: number; text: string }[];
  /** The read reached the end of the file, so the last line's number is its length. */
  endOfFile: boolean;
}

export function parseFileRead(output: string): FileRead | null {
  const [header, ...rest] = output.split("\n");
  const m = READ_HEADER.exec(header ?? "");
  if (!m) return null;
  const lines = rest.flatMap((l) => {
    const r = READ_LINE.exec(l);
    return r ? [{ number: Number(r[1]), text: r[2]! }] : [];
  });
  return { path: m[1]!, lines, endOfFile: Boolean(m[2]) };
}

/** The body of a narrative-cast subagent result: between the header block and the footer. */
export function narrativeBody(result: string): { label: string; status: string; body: string } {
  const label = /^\[Subagent Result: (.+)\]/.exec(result)?.[1] ?? "subagent";
  const status = /^Status: (.+)$/m.exec(result)?.[1] ?? "Unknown";
  const start = result.indexOf("\n\n");
  const end = result.lastIndexOf("\n\n---\n");
  const body = start >= 0 ? result.slice(start + 2, end > start ? end : undefined) : result;
  return { label, status, body: body.trim() };
}
