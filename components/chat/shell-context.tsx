"use client";

import { createContext, useContext } from "react";

/**
 * Set between pressing "New chat" and the start page appearing, so the chat being left
 * locks its composer: a prompt typed in that moment goes to the new chat, not the old one.
 */
export const LeavingContext = createContext(false);

export function useLeaving(): boolean {
  return useContext(LeavingContext);
}
