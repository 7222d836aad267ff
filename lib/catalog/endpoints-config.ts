import { z } from "zod";
import { pricesSchema } from "@/lib/agent/definitions";
import { splitModelKey } from "@/lib/contracts/catalog";

/**
 * The endpoints file (ENDPOINTS_FILE): the OpenAI-compatible endpoints whose models a
 * person may pick for a chat, each with the models the operator wants to name (label,
 * context size, whether it reads images, prices). An endpoint that lists its models on
 * `GET /models` adds those it lists; one that does not (or with `list: false`) offers the
 * configured names only. Keys are never in the file: `apiKeyEnv` names the variable that
 * holds one, so the file can be committed.
 */

export const ENDPOINT_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** Refreshing a listing more often than this only loads the endpoint. */
export const MIN_REFRESH_SECONDS = 30;

const configuredModelSchema = z.strictObject({
  id: z.string().trim().min(1, "must name the model its endpoint knows").max(200),
  label: z.string().trim().min(1).max(80).optional(),
  contextTokens: z.number().int().min(1_000).max(10_000_000).optional(),
  images: z.boolean().optional(),
  prices: pricesSchema.optional(),
});
export type ConfiguredModel = z.infer<typeof configuredModelSchema>;

const endpointSchema = z.strictObject({
  id: z.string().regex(ENDPOINT_ID, "must be lowercase letters, digits, '-' or '_' (at most 40), starting with a letter or digit"),
  label: z.string().trim().min(1).max(60).optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. "http://localhost:11434/v1"' }),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the NAME of an environment variable that holds the key, not the key itself")
    .optional(),
  /** Ask `GET /models` for what it serves (default true). */
  list: z.boolean().default(true),
  refreshSeconds: z.number().int().min(MIN_REFRESH_SECONDS).max(86_400).default(300),
  models: z.array(configuredModelSchema).max(500).default([]),
});
export type EndpointConfig = z.infer<typeof endpointSchema>;

export const endpointsFileSchema = z
  .strictObject({
    /** The model a chat runs on when nobody chose one: `<endpoint id>/<model id>`. */
    default: z.string().optional(),
    endpoints: z.array(endpointSchema).min(1, "must name at least one endpoint").max(50),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.endpoints.forEach((endpoint, index) => {
      if (seen.has(endpoint.id))
        ctx.addIssue({ code: "custom", path: ["endpoints", index, "id"], message: `"${endpoint.id}" is used twice` });
      seen.add(endpoint.id);
    });
    if (file.default !== undefined && !splitModelKey(file.default))
      ctx.addIssue({ code: "custom", path: ["default"], message: 'must be "<endpoint id>/<model id>"' });
  });
export type EndpointsFile = z.infer<typeof endpointsFileSchema>;

export class EndpointsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EndpointsConfigError";
  }
}

/** The file's content, checked, or one error naming every field that is wrong. */
export function parseEndpointsFile(value: unknown, file = "ENDPOINTS_FILE"): EndpointsFile {
  const parsed = endpointsFileSchema.safeParse(value);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".") || "(file)"}: ${issue.message}`);
    throw new EndpointsConfigError(`Invalid endpoints file ${file}:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** Every endpoint whose `apiKeyEnv` names an unset variable, as one error (its every request would fail with a 401). */
export function checkEndpointKeys(file: EndpointsFile, lookup: (name: string) => string | undefined): void {
  const problems = file.endpoints.flatMap((e) =>
    e.apiKeyEnv && !lookup(e.apiKeyEnv)?.trim() ? [`  ${e.id}: apiKeyEnv names ${e.apiKeyEnv}, which is not set`] : [],
  );
  if (problems.length) throw new EndpointsConfigError(`Invalid endpoints file:\n${problems.join("\n")}`);
}
