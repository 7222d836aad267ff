/** The tokens page, linked from the sidebar while the A2A server is on. */
export const TOKENS_PATH = "/tokens";
