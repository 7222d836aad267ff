/**
 * The prompts the offline demo model is known to answer with real tools and subagents:
 * one list for the home page (components/chat/empty-state.tsx), the demo's own help
 * (system-replies.ts) and the README, which a test holds to it (prompts.test.ts checks
 * that each one does what its line says). Other engineers' playbooks rely on these words.
 */
export const DEMO_PROMPTS = [
  { prompt: "Investigate the open bugs and the release plan", does: "two `explore` subagents read the workspace in parallel" },
  {
    prompt: "Compare the harmonics, constituents, datums, extremes and stations modules",
    does: "five `explore` subagents at once, one per module",
  },
  {
    prompt: "Deep dive into the tide predictor and the datum conversion",
    does: "a `general` subagent hands each part to an `explore` subagent of its own",
  },
  {
    prompt: "Fix the typo in CONTRIBUTING.md",
    does: "a subagent two levels down asks **your approval** to edit the file, showing the diff",
  },
  { prompt: "hello", does: "this help" },
] as const;
