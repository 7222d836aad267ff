/**
 * A label whose values come from outside (a model's name, a tool a model asked for): the
 * first `max` distinct values keep their own, later ones share `other`. A metric's series
 * multiply with each label's values, and a model can make up any tool name it likes, so
 * the set must stop growing somewhere.
 */
export const OTHER_LABEL = "other";

/** Longer values are cut: a label is a name, not a payload. */
const MAX_LABEL_CHARS = 100;

export class BoundedLabels {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  label(value: string): string {
    const name = value.slice(0, MAX_LABEL_CHARS) || "unknown";
    if (this.seen.has(name)) return name;
    if (this.seen.size >= this.max) return OTHER_LABEL;
    this.seen.add(name);
    return name;
  }
}
