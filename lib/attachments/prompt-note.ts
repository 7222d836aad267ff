import type { AttachmentRef } from "@/lib/contracts/attachment";
import { describeSize } from "./limits";

/**
 * How an image of a prompt reaches its model: `shown` as an image part of the message,
 * `unseen` because the model reads no images, `earlier` because the prompt belongs to an
 * earlier turn (its context is rebuilt from history, and an image sent again with every
 * later request would cost its tokens each time).
 */
export type ImageDelivery = "shown" | "unseen" | "earlier" | "gone";

const KIND_WORD: Record<AttachmentRef["kind"], string> = { text: "text", pdf: "PDF", image: "image" };

function imageLine(ref: AttachmentRef, delivery: ImageDelivery): string {
  const about = `${ref.type}, ${describeSize(ref.size)}`;
  switch (delivery) {
    case "shown":
      return `- attachments/${ref.name} (${about}): an image, shown with this message`;
    case "unseen":
      return `- attachments/${ref.name} (${about}): the person attached this image; you cannot see it (this model does not read images), so ask them what it shows if that matters`;
    case "earlier":
      return `- attachments/${ref.name} (${about}): an image that was shown with this message when it was sent`;
    case "gone":
      return `- attachments/${ref.name} (${about}): an image that could not be read any more, so it is not shown`;
  }
}

/**
 * The lines a prompt's attachments add under the person's text, naming each file as the
 * tools read it, so the model knows which of the chat's attachments this message is about.
 * Empty when the prompt names none.
 */
export function promptAttachmentNote(
  refs: readonly AttachmentRef[],
  images: ImageDelivery | ((ref: AttachmentRef) => ImageDelivery),
): string {
  if (refs.length === 0) return "";
  const delivery = typeof images === "function" ? images : () => images;
  const lines = refs.map((ref) =>
    ref.kind === "image" ? imageLine(ref, delivery(ref)) : `- attachments/${ref.name} (${KIND_WORD[ref.kind]}, ${describeSize(ref.size)})`,
  );
  const readable = refs.some((ref) => ref.kind !== "image");
  return [
    "[The person attached these files to this message:",
    ...lines,
    ...(readable ? ["Read the text and PDF files with file_read (or have a subagent read them).]"] : ["]"]),
  ].join("\n");
}

/** The prompt's text with its attachment note under it. */
export function promptWithAttachments(
  prompt: string,
  refs: readonly AttachmentRef[],
  images: ImageDelivery | ((ref: AttachmentRef) => ImageDelivery),
): string {
  const note = promptAttachmentNote(refs, images);
  return note ? `${prompt}\n\n${note}` : prompt;
}
