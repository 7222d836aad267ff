import { DEMO_PROMPTS } from "./prompts";

/**
 * The demo model's fixed replies that need no tools: the help text for plain chat, the
 * JSON a condensation request asks for, and a compaction summary.
 */

export function chatAnswer(prompt: string): string {
  const greeting = /^\s*(hi|hello|hey|good (morning|afternoon|evening)|howdy)\b/i.test(prompt);
  const clipped = prompt.length > 120 ? `${prompt.slice(0, 120)}…` : prompt;
  return [
    greeting
      ? "Hello! I'm the **offline demo model**."
      : `You said: “${clipped.trim()}”. I'm the **offline demo model**, so I follow fixed rules instead of understanding free text.`,
    "",
    "No AI provider is configured, but the tools and subagents you'll see are real: they read the files in the workspace.",
    "",
    "| try saying | what happens |",
    "|---|---|",
    ...DEMO_PROMPTS.map(({ prompt, does }) => `| \`${prompt}\` | ${does} |`),
    "",
    "Requests that start with *investigate*, *compare*, *review*, *summarise* or *look into* work the same way: one `explore` subagent per thing named (joined by “and” or commas), up to five at once. Anything else gets this help.",
    "",
    "To talk to a real model, point Delegate at any OpenAI-compatible endpoint:",
    "",
    "```bash",
    "OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=llama3.1 npm run app",
    "```",
  ].join("\n");
}

const PATH = /\b[\w.-]+(?:\/[\w.-]+)*\.(?:md|py|csv|toml|txt|ts|json)\b/g;

export function condenseJson(request: string): string {
  const marker = "Result to condense:\n";
  const text = request.includes(marker) ? request.slice(request.indexOf(marker) + marker.length) : request;
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
  return JSON.stringify({
    summary: clip(lines.slice(0, 2).join(" "), 240),
    conclusions: lines
      .filter((l) => l.startsWith("- "))
      .slice(0, 3)
      .map((l) => clip(l.slice(2), 160)),
    filePaths: [...new Set(text.match(PATH) ?? [])].slice(0, 5),
    actionItems: [],
    errors: lines
      .filter((l) => /^error\b/i.test(l))
      .slice(0, 2)
      .map((l) => clip(l, 160)),
    keyData: lines
      .filter((l) => /^\d+: /.test(l))
      .slice(0, 3)
      .map((l) => clip(l, 160)),
  });
}

export function compactSummary(transcript: string): string {
  const asks = transcript
    .split("\n")
    .filter((l) => l.startsWith("user: "))
    .map((l) => l.slice(6, 106))
    .slice(-8);
  const tools = [...new Set([...transcript.matchAll(/^tool (\w+) result:/gm)].map((m) => m[1]))];
  return [
    `Earlier the user asked: ${asks.map((a) => `“${a}”`).join("; ") || "nothing yet"}.`,
    tools.length ? `Tools used: ${tools.join(", ")}.` : "",
  ]
    .join(" ")
    .trim();
}
