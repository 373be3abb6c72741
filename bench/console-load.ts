/**
 * The console's first load, in Chromium: from navigating to `/console` to its run list shown (its
 * first rows painted), with N runs in the tenant (a fifth of them turns of long conversations) — against the first load of `/chat` (its composer
 * painted), a page of the same app with the same shell and sign-in but no list, loaded from the same
 * server in the same run, alternating with the console's so both meet the same machine. The target
 * (issue 35): under a second on this machine.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, signInAs } from "../tests/helpers/chromium";
import { createToken, signIn } from "../tests/helpers/http";
import { prepareDatabase, type Engine } from "../tests/helpers/own-server";
import { startServer } from "../tests/helpers/server";
import { percentile } from "./stats";
import { body } from "./tools-and-waits";

export interface ConsoleLoad {
  engine: Engine;
  runs: number;
  /** Each page's loads after the first, sorted ascending, in ms from the navigation's start. */
  chat: number[];
  console: number[];
  /** The console's first load after the server started (its code and statements still cold). */
  consoleCold: number;
}

/** Loads of each page measured (after one that warms the server up). */
const LOADS = Number(process.env.BENCH_CONSOLE_LOADS ?? 7);
/** Rows the console shows at once that count as "the list is shown". */
const ROWS_SHOWN = 50;
export const CONSOLE_TARGET_MS = 1_000;

/** One chat turn of alice's on `threadId`, to its end. */
async function chatTurn(url: string, token: string, threadId: string, text: string): Promise<void> {
  const res = await fetch(`${url}/api/agents/concierge/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body(threadId, [{ id: randomUUID(), role: "user", content: text }]),
  });
  if (!(await res.text()).includes("RUN_FINISHED")) throw new Error(`seeding "${text}": HTTP ${res.status}`);
}

/** Turns of one long conversation: well under the messages a thread may hold (HARBOR_MAX_THREAD_MESSAGES, 1,000). */
const LONG_TURNS = 400;

/**
 * `runs` finished runs of alice's, a tenant with history: a fifth of them the turns of long
 * conversations (one turn after the other, as a person chats), the rest one-turn chats, a few at a time.
 */
async function seedRuns(url: string, runs: number): Promise<void> {
  const { token } = await createToken(url, await signIn(url, "alice@acme.test"), "bench-console");
  const long = Math.floor(runs / 5);
  let next = long;
  await Promise.all([
    ...Array.from({ length: Math.ceil(long / LONG_TURNS) }, async (_, c) => {
      const conversation = randomUUID();
      for (let n = c * LONG_TURNS; n < Math.min(long, (c + 1) * LONG_TURNS); n++) {
        await chatTurn(url, token, conversation, `hello again, turn ${n}`);
      }
    }),
    ...Array.from({ length: 6 }, async () => {
      while (next < runs) await chatTurn(url, token, randomUUID(), `hello number ${next++}`);
    }),
  ]);
}

/**
 * A page that notes, in `window.shownAt`, when `count` elements matching `selector` were first
 * painted (the frame after they entered the document), in ms from its navigation's start.
 */
async function watchingPage(browser: Browser, baseUrl: string, selector: string, count: number): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await signInAs(page, baseUrl, "carol@acme.test");
  // A string, not a function: tsx names the functions it compiles with a helper the page lacks.
  await page.addInitScript(`{
    const look = () => {
      if (document.querySelectorAll(${JSON.stringify(selector)}).length < ${count}) return;
      observer.disconnect();
      requestAnimationFrame(() => (window.shownAt ??= performance.now()));
    };
    const observer = new MutationObserver(look);
    observer.observe(document, { subtree: true, childList: true });
    document.addEventListener("DOMContentLoaded", look);
  }`);
  return page;
}

async function loadTime(page: Page, url: string): Promise<number> {
  await page.goto(url);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const at = await page.evaluate(() => (window as unknown as { shownAt?: number }).shownAt);
    if (at !== undefined) return at;
    if (Date.now() > deadline) throw new Error(`${url}: nothing shown in 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The console's and /chat's first loads on `engine`, with `runs` runs in the tenant. */
export async function measureConsoleLoad(engine: Engine, postgresUrl: string, runs: number): Promise<ConsoleLoad> {
  const database = await prepareDatabase(engine, undefined, postgresUrl);
  const server = await startServer({ ...database.env, HARBOR_STREAM_CHUNK_MS: "0", LOG_LEVEL: "warn" }, `bench-console-${engine}-${runs}`);
  const browser = await launchBrowser();
  try {
    await seedRuns(server.url, runs);
    const rows = Math.min(runs, ROWS_SHOWN);
    const consolePage = await watchingPage(browser, server.url, '[data-testid="run-row"]', rows);
    const chatPage = await watchingPage(browser, server.url, "textarea[name=message]", 1);
    const consoleCold = await loadTime(consolePage, `${server.url}/console`);
    await loadTime(chatPage, `${server.url}/chat`);
    const times = { chat: [] as number[], console: [] as number[] };
    for (let i = 0; i < LOADS; i++) {
      times.chat.push(await loadTime(chatPage, `${server.url}/chat`));
      times.console.push(await loadTime(consolePage, `${server.url}/console`));
    }
    const sorted = (ms: number[]) => ms.map(Math.round).sort((a, b) => a - b);
    return { engine, runs, chat: sorted(times.chat), console: sorted(times.console), consoleCold: Math.round(consoleCold) };
  } finally {
    await browser.close();
    await server.stop();
    await database.drop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
}

export function printConsoleLoad(results: readonly ConsoleLoad[]): void {
  console.log(
    `\nConsole first load (Chromium, 1280×800, median of ${LOADS}): navigation → the run list painted, ` +
      `against /chat's first load (its composer painted) on the same server`,
  );
  console.log("engine       runs   /chat p50 ms   /console p50 ms   p90 ms   /console ÷ /chat   after start ms   target < 1 s");
  for (const r of results) {
    const chat = percentile(r.chat, 50);
    const consoleP50 = percentile(r.console, 50);
    console.log(
      `${r.engine.padEnd(10)} ${String(r.runs).padStart(6)} ${String(chat).padStart(14)} ${String(consoleP50).padStart(17)} ` +
        `${String(percentile(r.console, 90)).padStart(8)} ${`${(consoleP50 / chat).toFixed(2)}×`.padStart(18)} ` +
        `${String(r.consoleCold).padStart(16)}   ${consoleP50 < CONSOLE_TARGET_MS ? "meets" : "MISSES"}`,
    );
  }
}
