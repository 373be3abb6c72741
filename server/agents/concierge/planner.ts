/**
 * The concierge's rule-based planner: no model, no network. It maps the user's latest message
 * to a step so every Harbor capability can be shown from the chat box and driven by tests.
 * A message may hold several requests, one per line; they are planned together.
 */
import type { Planner, PlannerDecision, RunState, TranscriptMessage } from "@/server/runtime";
import { formatAmount } from "./tools";

/** What the concierge can do, one phrase per line, as its README table lists them. */
export const CAPABILITIES = [
  "send an email to <address> saying <text>",
  "transfer <amount> to <account>",
  "what is my time zone",
  "connect my api key",
  "research <topic>",
  "check my calendar",
  "ask the travel agent to book a trip",
  "count slowly to <n>",
] as const;

const GREETING = /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i;
const SEND_EMAIL = /\bsend an email to\s+([^\s@]+@[^\s@]+\.[^\s@,;]+)\s+saying\s+(.+)$/i;
const RESEARCH = /^\s*research\s+(\S.*)$/i;
const CONNECT_API_KEY = /\bconnect my api key\b/i;
const TIME_ZONE = /\bwhat(?:'s| is) my time ?zone\b/i;
const CHECK_CALENDAR = /\bcheck my calendar\b/i;
const ASK_TRAVEL_AGENT = /\bask the travel agent to\s+(\S.*)$/i;
const TRANSFER = /\btransfer\s+[$€£]?\s*(\d[\d,]*(?:\.\d{1,2})?)\s*([a-z]{3})?\s+to\s+(\S.*)$/i;

/** What each of the concierge's tools waits for; requests of different kinds go in separate messages. */
const WAIT_KIND: Record<string, string> = {
  get_browser_timezone: "browser",
  connect_api_key: "private",
  deep_research: "background",
  calendar_today: "oauth",
  ask_travel_agent: "remote",
};
/** Requests that must be a message's only one. */
const ALONE = new Set(["connect_api_key", "deep_research", "calendar_today", "ask_travel_agent"]);
const ONE_AT_A_TIME =
  "I can plan several emails and transfers together, but please ask for your time zone, your API key, research, your calendar or the travel agent in a message of its own.";

export function capabilityList(): string {
  return `Here is what I can do:\n${CAPABILITIES.map((c) => `- ${c}`).join("\n")}`;
}

/** "What can you do?", "How can you help?", "help": asked what it can do, the concierge says so. */
const CAPABILITY_QUESTION = /^\s*(what (?:can|do) you do|what are you able to do|how can you help(?: me)?|help)\b/i;

export function replyTo(text: string): string {
  if (GREETING.test(text)) return `Hello! I'm the Harbor concierge. ${capabilityList()}`;
  if (CAPABILITY_QUESTION.test(text)) {
    return `I'm the Harbor concierge: I send emails and make transfers (each waits for the approval it needs), read your time zone from your browser, connect an API key privately, research in the background, check your calendar once you connect it, and ask the travel agent. ${capabilityList()}`;
  }
  return `I can't help with that yet. ${capabilityList()}`;
}

type Call = { name: string; args: Record<string, unknown> };

/** The tool calls a user message asks for, one per matching line. */
export function plannedCalls(text: string): Call[] {
  return text.split("\n").flatMap((line): Call[] => {
    if (TIME_ZONE.test(line)) return [{ name: "get_browser_timezone", args: {} }];
    if (CONNECT_API_KEY.test(line)) return [{ name: "connect_api_key", args: {} }];
    if (CHECK_CALENDAR.test(line)) return [{ name: "calendar_today", args: {} }];
    const travel = ASK_TRAVEL_AGENT.exec(line);
    if (travel)
      return [
        {
          name: "ask_travel_agent",
          args: {
            request: capitalize(
              travel[1]!
                .trim()
                .replace(/[.!?]$/, "")
                .slice(0, 500),
            ),
          },
        },
      ];
    const research = RESEARCH.exec(line);
    if (research)
      return [
        {
          name: "deep_research",
          args: {
            topic: research[1]!
              .trim()
              .replace(/[.!?]$/, "")
              .slice(0, 200),
          },
        },
      ];
    const email = SEND_EMAIL.exec(line.trim());
    if (email) return [{ name: "send_email", args: { to: email[1]!, body: email[2]!.trim() } }];
    const transfer = TRANSFER.exec(line.trim());
    if (transfer) {
      const amount = Number(transfer[1]!.replaceAll(",", ""));
      const currency = (transfer[2] ?? "USD").toUpperCase();
      return [{ name: "transfer_funds", args: { amount, currency, to: transfer[3]!.trim().replace(/[.!]$/, "") } }];
    }
    return [];
  });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Today's events, one per line. */
function agenda(parsed: Record<string, unknown>): string {
  const events = Array.isArray(parsed.events) ? (parsed.events as { start: string; end: string; title: string }[]) : [];
  if (events.length === 0) return `Your calendar is clear today (${String(parsed.date)}).`;
  const lines = events.map((e) => `- ${e.start}–${e.end} ${e.title}`);
  return `Today (${String(parsed.date)}) you have ${events.length} event${events.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/** What to tell the user about one finished call. */
function outcomeOf(call: { name: string; args: Record<string, unknown> }, result: TranscriptMessage | undefined): string {
  const parsed = result ? (JSON.parse(result.content) as Record<string, unknown>) : {};
  if (call.name === "calendar_today")
    return parsed.rejected === true ? "I did not read your calendar: the connection was cancelled." : agenda(parsed);
  if (call.name === "ask_travel_agent") {
    return parsed.rejected === true ? "I cancelled the request to the travel agent." : `${String(parsed.agent)}: ${String(parsed.text)}`;
  }
  if (call.name === "connect_api_key") return parsed.connected === true ? "API key connected." : "I did not connect an API key.";
  if (call.name === "get_browser_timezone") {
    return typeof parsed.timeZone === "string" ? `Your time zone is ${parsed.timeZone}.` : "I could not read your browser's time zone.";
  }
  const what =
    call.name === "send_email"
      ? `the email to ${String(call.args.to)}`
      : `the transfer of ${formatAmount(call.args as { amount: number; currency: string })} to ${String(call.args.to)}`;
  if (parsed.rejected === true) {
    const reason = typeof parsed.reason === "string" && parsed.reason !== "cancelled" ? `: ${parsed.reason}` : "";
    return parsed.reason === "cancelled" ? `I cancelled ${what}.` : `I did not make ${what}; it was rejected${reason}.`;
  }
  // The owner gave an email's standing approval; an approver gave a transfer's.
  const underGrant = parsed.standing === true ? ` under ${call.name === "send_email" ? "your" : "a"} standing approval` : "";
  if (call.name === "send_email") return `Email sent to ${String(call.args.to)}${underGrant}.`;
  return `Transferred ${formatAmount(call.args as { amount: number; currency: string })} to ${String(call.args.to)}${underGrant}.`;
}

/** Reports the results of the latest batch of tool calls. */
function report(transcript: readonly TranscriptMessage[]): string {
  const calling = transcript.findLast((m) => m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0);
  const results = new Map(transcript.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m]));
  return (calling?.toolCalls ?? []).map((call) => outcomeOf(call, results.get(call.id))).join("\n");
}

const COUNT = /\bcount slowly to (\d{1,4})\b/i;
const WITH_HELPERS = /\bwith helpers\b/i;
const HELPERS = 2;

/**
 * The counting run — a long run to steer: one number per step. Its goal is the operator's REDIRECT
 * if any, else the user's latest "count slowly to <n>"; it goes on from the last number it said;
 * injected context and in-band user messages are acknowledged at the next step.
 */
function countingStep(state: Readonly<RunState>, stepMs: number): PlannerDecision | undefined {
  const transcript = state.transcript;
  const asked = transcript.findLastIndex((m) => m.role === "user" && COUNT.test(m.content));
  // A redirect counts when it is a counting goal; anything else leaves the user's request in place.
  const goal = state.goal && COUNT.test(state.goal) ? state.goal : transcript[asked]?.content;
  const target = goal ? Number(COUNT.exec(goal)?.[1]) : NaN;
  if (asked === -1 || !Number.isFinite(target)) return undefined;
  const since = transcript.slice(asked + 1);
  // A finished count is history, and so is one whose run ended early (its note is a system message)
  // when the user said something since: that message is answered as usual. A run asked for on the
  // thread as it stands after such a note, with nothing new said (a Retry), counts on from where it was cut.
  const endedEarly = since.some((m) => m.role === "system");
  if (
    (endedEarly && since.some((m) => m.role === "user")) ||
    since.some((m) => m.role === "assistant" && m.content.startsWith("Done counting to "))
  )
    return undefined;
  // Helpers first: child runs that count too, so cascading and isolated cancels can be seen.
  if (WITH_HELPERS.test(goal!) && (state.children ?? []).length === 0) {
    return { type: "spawn", requests: Array.from({ length: HELPERS }, () => `count slowly to ${target}`) };
  }
  for (const note of state.context ?? []) {
    if (!since.some((m) => m.role === "assistant" && m.content === `Noted: ${note}`)) return { type: "say", text: `Noted: ${note}` };
  }
  for (const message of since.filter((m) => m.role === "user")) {
    const reply = `You said: “${message.content}”. Counting on.`;
    if (!since.some((m) => m.role === "assistant" && m.content === reply)) return { type: "say", text: reply };
  }
  const said = since.filter((m) => m.role === "assistant" && /^\d+$/.test(m.content));
  const next = said.length > 0 ? Number(said.at(-1)!.content) + 1 : 1;
  if (next > target) {
    return { type: "say", text: `Done counting to ${target}.` };
  }
  return { type: "say", text: String(next), thenWaitMs: stepMs };
}

export function conciergePlanner(options: { stepMs?: number } = {}): Planner {
  const stepMs = options.stepMs ?? 500;
  return {
    next: (state) => {
      const counting = countingStep(state, stepMs);
      return counting ?? answer(state);
    },
  };
}

/** Everything but counting: tool results reported, the user's latest turn answered once. */
function answer(state: Readonly<RunState>): PlannerDecision {
  const latest = state.transcript.at(-1);
  if (latest?.role === "tool") return { type: "say", text: report(state.transcript) };
  // Answer the user's latest turn once; anything else means the run is done. A run asked for after
  // one that ended before it answered (a Retry: only the run's note came since) answers it now.
  const last = latest?.role === "system" ? state.transcript.findLast((m) => m.role !== "system") : latest;
  if (!last || last.role !== "user") return { type: "finish" };
  const calls = plannedCalls(last.content);
  const kinds = new Set(calls.map((c) => WAIT_KIND[c.name] ?? "approval"));
  if (calls.length > 1 && (kinds.size > 1 || calls.some((c) => ALONE.has(c.name)))) {
    return { type: "say", text: ONE_AT_A_TIME };
  }
  if (calls.length > 0) return { type: "call_tools", calls };
  return { type: "say", text: replyTo(last.content) };
}
