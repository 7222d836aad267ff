import type { ModelOption } from "@/lib/contracts/catalog";

/** What the picker says of a model beside its name: its context, whether it reads images, its prices. */
export function modelDetails(option: Pick<ModelOption, "contextTokens" | "images" | "prices">): string {
  const parts: string[] = [];
  if (option.contextTokens) parts.push(`${contextSize(option.contextTokens)} context`);
  if (option.images) parts.push("images");
  if (option.prices) parts.push(`$${price(option.prices.inputPerMTok)} / $${price(option.prices.outputPerMTok)} per M tokens`);
  return parts.join(" · ");
}

function contextSize(tokens: number): string {
  if (tokens >= 1_000_000) return `${Math.round(tokens / 100_000) / 10}M`;
  return `${Math.round(tokens / 1000)}k`;
}

function price(perMillion: number): string {
  return perMillion >= 1 ? perMillion.toFixed(2).replace(/\.00$/, "") : String(Math.round(perMillion * 1000) / 1000);
}
