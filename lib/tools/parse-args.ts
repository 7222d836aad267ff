import { z } from "zod";
import type { ToolSpec } from "@/lib/model/types";
import { ToolError } from "./types";

/** Validates untrusted model arguments, failing with a sentence the model can act on. */
export function parseArgs<T extends z.ZodType>(toolName: string, schema: T, args: unknown): z.output<T> {
  // Some models send the arguments JSON as a string, or nothing for a tool without any.
  let value = args ?? {};
  if (typeof value === "string") {
    try {
      value = JSON.parse(value === "" ? "{}" : value);
    } catch {
      throw new ToolError(`The arguments for ${toolName} are not valid JSON.`);
    }
  }
  const result = schema.safeParse(withoutNulls(value));
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message));
  throw new ToolError(`Invalid arguments for ${toolName}: ${problems.join("; ")}.`);
}

/** The tool spec, its JSON Schema derived from the same zod schema that validates. */
export function toolSpec(name: string, description: string, schema: z.ZodType): ToolSpec {
  const { $schema: _drop, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return { name, description, parameters };
}

/** Many models send `null` for an optional argument they mean to leave out. */
function withoutNulls(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));
}
