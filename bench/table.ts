/**
 * Plain-text and Markdown tables for the benchmark report: the same rows print to the
 * terminal and paste into README's Performance section.
 */
export interface Table {
  title: string;
  headers: string[];
  rows: string[][];
  /** One line under the table: sizes and what the figures mean. */
  note?: string;
  /** Text columns read better left-aligned; figures line up right-aligned (the default). */
  leftAligned?: boolean;
}

export function renderText(table: Table): string {
  const widths = table.headers.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || table.leftAligned ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const out = [table.title, line(table.headers), widths.map((w) => "-".repeat(w)).join("  "), ...table.rows.map(line)];
  if (table.note) out.push(table.note);
  return out.join("\n");
}

export function renderMarkdown(table: Table): string {
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const align = table.headers.map((_, i) => (i === 0 || table.leftAligned ? ":--" : "--:"));
  const out = [`**${table.title}**`, "", row(table.headers), row(align), ...table.rows.map(row)];
  if (table.note) out.push("", table.note);
  return out.join("\n");
}

/** Human figures: thousands separators, a fixed number of decimals, "–" when absent. */
export function fmt(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
