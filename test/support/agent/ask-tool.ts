import type { InputForm } from "@/lib/contracts";
import type { Tool } from "@/lib/tools/types";

/** The form the test tool asks with: one required choice. */
export const SIZE_FORM: InputForm = {
  type: "object",
  properties: { size: { type: "string", title: "Size", enum: ["s", "m", "l"] } },
  required: ["size"],
};

/**
 * A tool that asks its person which size to order (through `askInput`) and says what came
 * back: the answer the model reads is the answer the person gave. `form` overrides the
 * form it asks with (a form that cannot be shown, for the refusals).
 */
export function askTool(form: unknown = SIZE_FORM): Tool<Record<string, never>> {
  return {
    spec: { name: "pick_size", description: "Asks the person for a size.", parameters: { type: "object", properties: {} } },
    parse: () => ({}),
    async run(_args, context) {
      if (!context.askInput) throw new Error("this tool runs only where a person can be asked");
      const answer = await context.askInput("Which size should I order?", form);
      return answer.action === "accept" ? `The person chose ${String(answer.content.size)}.` : `The person answered: ${answer.action}.`;
    },
  };
}
