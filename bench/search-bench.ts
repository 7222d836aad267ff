import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { emptyStats, SESSION_PAGE_SIZE, type ChatTurn, type SessionPage } from "@/lib/contracts";
import { termsOf } from "@/lib/search/terms";
import { turnSearchText } from "@/lib/search/turn-text";
import { mulberry32 } from "@/test/support/turn/recorded-stream";
import { startAppProcess } from "@/e2e/app-process";
import { CHROMIUM_ARGS } from "@/playwright.config";
import { IDENTITY_COOKIE } from "@/server/accounts/identity";
import { BENCH_SECRET, command, startBenchApp } from "./bench-app";
import type { BenchDatabase } from "./bench-database";
import { CHROMIUM_PATH } from "./browser-bench";
import { round, summarize } from "./stats";

/**
 * Search and the sidebar with many chats. One person with `chats` chats, each
 * of `turnsPerChat` turns of realistic length (prompt, answer, two subagent results;
 * words drawn Zipf-like from a vocabulary of pseudo-words, so common words match
 * thousands of turns and rare ones a few), written as the rows the app writes.
 * Measured: `session:search` over the socket (p50/p99 over `queries` mixed queries:
 * whole words, a word being typed, with and without subagents), `session:page`, and in
 * Chromium the sidebar's first page after navigation and a scroll to its very bottom.
 */
export interface SearchBenchSize {
  chats: number;
  turnsPerChat: number;
  queries: number;
  browser: boolean;
}
export const SEARCH_FULL: SearchBenchSize = { chats: 10_000, turnsPerChat: 2, queries: 200, browser: true };
export const SEARCH_SMOKE: SearchBenchSize = { chats: 150, turnsPerChat: 2, queries: 10, browser: false };

export interface SearchBenchResult {
  chats: number;
  turns: number;
  /** Words of text indexed per turn (prompt, answer, subagent results), on average. */
  wordsPerTurn: number;
  seedS: number;
  queries: number;
  searchP50Ms: number;
  searchP99Ms: number;
  searchMaxMs: number;
  /** Results per query, on average (at most 20). */
  hitsMean: number;
  pageP50Ms: number;
  browser?: { firstPageMs: number; scrollToBottomMs: number; chatsRendered: number; longestTaskMs: number } | { skipped: string };
}

const VOCABULARY = 4_000;

function words(random: () => number): string[] {
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tor",
    "sa",
    "vi",
    "dun",
    "el",
    "qua",
    "bri",
    "op",
    "zen",
    "ta",
    "mor",
    "li",
    "ux",
    "gra",
    "pe",
    "no",
  ];
  const out = new Set<string>();
  while (out.size < VOCABULARY) {
    const n = 2 + Math.floor(random() * 3);
    out.add(Array.from({ length: n }, () => syllables[Math.floor(random() * syllables.length)]).join(""));
  }
  return [...out];
}

/** A word by rank, about Zipf(1): rank r with probability ∝ 1/r. */
function zipf(random: () => number, vocabulary: readonly string[]): string {
  const r = Math.floor(Math.exp(random() * Math.log(vocabulary.length)));
  return vocabulary[Math.min(vocabulary.length - 1, r - 1)]!;
}

function sentence(random: () => number, vocabulary: readonly string[], n: number): string {
  return Array.from({ length: n }, () => zipf(random, vocabulary)).join(" ");
}

export async function runSearchBench(
  db: BenchDatabase,
  size: SearchBenchSize,
  say: (line: string) => void = () => undefined,
): Promise<SearchBenchResult> {
  const random = mulberry32(14);
  const vocabulary = words(random);
  const bench = await startBenchApp(
    {
      startTurn: () => {
        throw new Error("no turns in the search benchmark");
      },
    },
    db.store,
  );
  try {
    const cookie = await bench.newCookie();
    const ownerId = cookie.slice(cookie.indexOf("=") + 1, cookie.lastIndexOf("."));
    const seeded = Date.now();
    let wordCount = 0;
    const base = Date.now() - size.chats * 60_000;
    for (let from = 0; from < size.chats; from += 500) {
      const sessions = [];
      const entries = [];
      for (let i = from; i < Math.min(size.chats, from + 500); i++) {
        const sessionId = `sb${String(i).padStart(6, "0")}`;
        const at = new Date(base + i * 60_000);
        const title = sentence(random, vocabulary, 4);
        sessions.push({
          _id: sessionId,
          ownerId,
          title,
          titleTerms: termsOf(title),
          searchIndexed: true,
          seqReserved: 0,
          createdAt: at,
          updatedAt: at,
        });
        for (let t = 0; t < size.turnsPerChat; t++) {
          const prompt = sentence(random, vocabulary, 20);
          const answer = sentence(random, vocabulary, 120);
          const results = [sentence(random, vocabulary, 80), sentence(random, vocabulary, 80)];
          wordCount += 300;
          const turn: ChatTurn = {
            turnId: `${sessionId}t${t}`,
            sessionId,
            prompt,
            steps: [
              {
                text: "",
                thinking: "",
                toolCalls: results.map((response, k) => ({
                  callId: `c${k}`,
                  name: "subagent",
                  parameters: "{}",
                  response,
                  responseSize: response.length,
                  status: "success" as const,
                  subagent: {
                    runId: `r${k}`,
                    parentRunId: null,
                    depth: 1,
                    name: "explore",
                    task: "t",
                    prompt: "t",
                    steps: [],
                    response,
                    stats: emptyStats(),
                    status: "success" as const,
                    startedAt: at.toISOString(),
                  },
                })),
              },
              { text: answer, thinking: "", toolCalls: [] },
            ],
            stats: emptyStats(),
            status: "completed",
            createdAt: new Date(at.getTime() + t).toISOString(),
          };
          entries.push({ _id: turn.turnId, ownerId, sessionId, at: new Date(turn.createdAt), ...turnSearchText(turn) });
        }
      }
      await db.models.Session.collection.insertMany(sessions as never[], { ordered: false });
      await db.models.SearchEntry.collection.insertMany(entries as never[], { ordered: false });
      if ((from / 500) % 4 === 3) say(`search: ${from + 500} of ${size.chats} chats written`);
    }
    const seedS = (Date.now() - seeded) / 1000;

    const socket = await bench.client(cookie);
    const times: number[] = [];
    let hits = 0;
    try {
      for (let q = 0; q < size.queries; q++) {
        const a = zipf(random, vocabulary.slice(50));
        const b = zipf(random, vocabulary.slice(20));
        const kind = q % 3;
        const query = kind === 0 ? a.slice(0, 3 + (q % 3)) : kind === 1 ? `${a} ${b.slice(0, 4)}` : `${a} ${b} `;
        const started = performance.now();
        // Generous: the test database server scans (see the note in report-tables.ts).
        const answer = await command(socket, "session:search", { query, subagents: q % 2 === 0 }, 180_000);
        times.push(performance.now() - started);
        hits += answer.hits.length;
        if ((q + 1) % 25 === 0) say(`search: ${q + 1} of ${size.queries} queries`);
      }
      const pages: number[] = [];
      let next: { updatedAt: string; sessionId: string } | null = null;
      for (let p = 0; p < 40; p++) {
        const started = performance.now();
        const page: SessionPage = await command(
          socket,
          "session:page",
          next ? { before: next, limit: SESSION_PAGE_SIZE } : { limit: SESSION_PAGE_SIZE },
        );
        pages.push(performance.now() - started);
        next = page.next;
      }
      const search = summarize(times);
      const result: SearchBenchResult = {
        chats: size.chats,
        turns: size.chats * size.turnsPerChat,
        wordsPerTurn: round(wordCount / (size.chats * size.turnsPerChat), 0),
        seedS: round(seedS, 1),
        queries: times.length,
        searchP50Ms: round(search.median, 1),
        searchP99Ms: round(search.p99, 1),
        searchMaxMs: round(search.max, 1),
        hitsMean: round(hits / times.length, 1),
        pageP50Ms: round(summarize(pages).median, 1),
      };
      if (size.browser) {
        say(`search: Chromium opening the sidebar of ${size.chats} chats and scrolling to its bottom…`);
        result.browser = existsSync(path.resolve(".next/BUILD_ID"))
          ? await sidebarInChromium(db.uri, cookie, size.chats)
          : { skipped: "no production build (.next/BUILD_ID)" };
      }
      return result;
    } finally {
      socket.disconnect();
    }
  } finally {
    await bench.close();
  }
}

/** The sidebar in Chromium: first page after navigation start, then scrolled until every chat is loaded and rendered. */
async function sidebarInChromium(
  mongoUri: string,
  cookie: string,
  chats: number,
): Promise<{ firstPageMs: number; scrollToBottomMs: number; chatsRendered: number; longestTaskMs: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "delegate-bench-"));
  const app = await startAppProcess({ mongoUri, dataDir, env: { SESSION_SECRET: BENCH_SECRET } });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ name: IDENTITY_COOKIE, value: cookie.slice(cookie.indexOf("=") + 1), url: app.baseUrl }]);
    const page = await context.newPage();
    // tsx keeps function names with a helper the page does not have.
    await page.addInitScript({ content: "globalThis.__name = (f) => f;" });
    await page.goto(app.baseUrl, { waitUntil: "commit", timeout: 60_000 });
    const first = await page.waitForFunction(
      (n) => {
        if (document.querySelectorAll('[data-testid="session-item"]').length < n) return false;
        const w = window as unknown as { __longest?: number };
        w.__longest = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) w.__longest = Math.max(w.__longest ?? 0, entry.duration);
        }).observe({ type: "longtask" });
        return performance.now();
      },
      Math.min(SESSION_PAGE_SIZE, chats),
      { polling: "raf", timeout: 120_000 },
    );
    const firstPageMs = (await first.jsonValue()) as number;
    const scrolled = await page.evaluate(
      ({ total, timeoutMs }) =>
        new Promise<{ ms: number; rendered: number; longest: number }>((resolve, reject) => {
          const nav = document.querySelector<HTMLElement>('nav[aria-label="Sessions"]')!;
          const started = performance.now();
          const step = () => {
            nav.scrollTop = nav.scrollHeight;
            const rendered = document.querySelectorAll('[data-testid="session-item"]').length;
            const end = document.querySelector('[data-testid="sessions-end"]');
            if (
              rendered >= total &&
              end?.getAttribute("data-has-more") !== "true" &&
              nav.scrollTop + nav.clientHeight >= nav.scrollHeight - 2
            ) {
              return resolve({
                ms: performance.now() - started,
                rendered,
                longest: (window as unknown as { __longest?: number }).__longest ?? 0,
              });
            }
            if (performance.now() - started > timeoutMs)
              return reject(new Error(`only ${rendered} of ${total} chats after ${timeoutMs} ms`));
            requestAnimationFrame(step);
          };
          step();
        }),
      { total: chats, timeoutMs: 300_000 },
    );
    return {
      firstPageMs: round(firstPageMs, 0),
      scrollToBottomMs: round(scrolled.ms, 0),
      chatsRendered: scrolled.rendered,
      longestTaskMs: round(scrolled.longest, 0),
    };
  } finally {
    await browser.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
