import { describeSize } from "@/lib/attachments/limits";
import type { ChatMessage, UserContentPart } from "./types";

/**
 * Tokens an image part is counted as. Providers bill an image by its pixels (OpenAI: 85 for
 * a low-detail image, up to about 1,100 for a large one at high detail); the estimate has
 * no pixels to go by and only needs to keep the budget honest, so it takes the large case.
 */
export const IMAGE_TOKENS = 1_100;

/** What stands for an image wherever a message is read as text: records, transcripts, the demo model. */
export function imagePlaceholder(part: Extract<UserContentPart, { type: "image" }>): string {
  return `[image: ${part.name}, ${part.mimeType}, ${describeSize(part.size)}]`;
}

/** A message's content as text: a user message's parts joined, each image as its placeholder (never its bytes). */
export function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : imagePlaceholder(part))).join("\n\n");
}

/** How many image parts a content holds. */
export function imageCount(content: ChatMessage["content"]): number {
  return typeof content === "string" ? 0 : content.filter((part) => part.type === "image").length;
}
