"use client";

import { createContext, useContext } from "react";

/**
 * Whether a prompt's attachment chips link to the files: the owner's chat page provides
 * true; a shared view leaves the default, since its viewer may not download the files.
 */
const AttachmentLinks = createContext(false);
export const AttachmentLinksProvider = AttachmentLinks.Provider;

export function useAttachmentLinks(): boolean {
  return useContext(AttachmentLinks);
}
