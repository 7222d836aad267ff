/** Browsers, most specific first: Edge and Opera also say "Chrome", Chrome also says "Safari". */
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bFxiOS\/(\d+)/, "Firefox"],
  [/\bCriOS\/(\d+)/, "Chrome"],
  [/(?:\b|Headless)Chrom(?:e|ium)\/(\d+)/, "Chrome"],
  [/\bVersion\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/\bcurl\/(\d+)/, "curl"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPod)\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/**
 * A browser's user agent as a person recognises it ("Firefox 133 on Linux"), for the list
 * of signed-in browsers. Unknown strings are cut short rather than guessed at.
 */
export function describeUserAgent(userAgent: string): string {
  const ua = userAgent.trim();
  if (!ua) return "Unknown browser";
  const browser = BROWSERS.map(([re, name]) => [re.exec(ua), name] as const).find(([m]) => m);
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (!browser && !system) return ua.length > 40 ? `${ua.slice(0, 39)}…` : ua;
  const name = browser ? `${browser[1]} ${browser[0]![1]}` : "A browser";
  return system ? `${name} on ${system}` : name;
}
