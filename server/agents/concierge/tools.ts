/**
 * The concierge's tools. The gated ones record what they did in the requester's outbox, once per
 * tool call, committed with the call's result once the coordinator let the call through its gate;
 * the browser one is run by the user's browser.
 */
import { z } from "zod";
import type { GrantBounds } from "@/server/domain";
import { HarborError, type RemoteAgentPort, type ToolContext, type ToolDefinition } from "@/server/runtime";
import { defineTool } from "../define";

const SendEmailInput = z.strictObject({ to: z.email(), body: z.string().min(1).max(2000) });
const TransferInput = z.strictObject({
  amount: z.number().positive().max(1_000_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/),
  to: z.string().min(1).max(64),
});
/** From this amount on, a transfer needs two approvers. */
export const LARGE_TRANSFER = 10_000;
/** `standing`: it went through on a standing approval, without asking. */
const Sent = z.strictObject({ sent: z.literal(true), outboxId: z.string(), standing: z.literal(true).optional() });
const Transferred = z.strictObject({ transferred: z.literal(true), outboxId: z.string(), standing: z.literal(true).optional() });
/** The highest cap an approver may give a standing approval of transfers (below the two-approver amount). */
export const TRANSFER_GRANT_LIMIT = 5_000;

const RESEARCH_STEPS = ["Searching", "Reading sources", "Cross-checking", "Drafting", "Polishing"] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type TransferArgs = z.infer<typeof TransferInput>;

export function formatAmount({ amount, currency }: Pick<TransferArgs, "amount" | "currency">): string {
  return `${amount.toLocaleString("en-US", { maximumFractionDigits: 2 })} ${currency}`;
}

const standing = (ctx: ToolContext) => (ctx.approval?.grantId ? { standing: true as const } : {});

/** A bound's value, as words show it. */
function boundValue(bounds: GrantBounds, field: string): string {
  const bound = bounds[field];
  if (!bound) return "any";
  return "equals" in bound ? String(bound.equals) : bound.atMost.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

/** The OAuth provider whose consent the calendar needs (`/api/oauth/callback/calendar`). */
export const CALENDAR_PROVIDER = "calendar";
export const CALENDAR_SCOPES = ["openid", "offline_access", "calendar.read"] as const;

const CalendarDay = z.object({
  date: z.string(),
  events: z.array(z.object({ start: z.string(), end: z.string(), title: z.string() })).max(100),
});

export interface ConciergeOptions {
  researchMs: number;
  /** The protected calendar resource `calendar_today` reads with the owner's access token. */
  calendarUrl?: string;
  /** The remote A2A travel agent `ask_travel_agent` delegates to. */
  travelAgent: RemoteAgentPort;
}

export function conciergeTools(options: ConciergeOptions): ToolDefinition[] {
  const { researchMs } = options;
  const sendEmail = defineTool({
    name: "send_email",
    title: "Send an email",
    description: "Sends an email on the user's behalf, once the user approves it.",
    input: SendEmailInput,
    output: Sent,
    approval: {
      policy: "owner",
      describe: (args) => `Send an email to ${args.to}`,
      // A nudge when a fifth of the time is left; unanswered, the email is not sent.
      deadline: { remindBefore: "20%", onExpiry: "reject" },
      // "Allow emails to this recipient": any text, the same address.
      grantable: { fields: { to: "equal" }, describe: (b) => `emails to ${boundValue(b, "to")}` },
    },
    async run(args, ctx) {
      const outboxId = ctx.recordInOutbox({ kind: "email", details: { to: args.to, body: args.body } });
      return { sent: true as const, outboxId, ...standing(ctx) };
    },
  });
  const transferFunds = defineTool({
    name: "transfer_funds",
    title: "Transfer funds",
    description: `Transfers money; one of the tenant's approvers other than the requester must approve (two from ${LARGE_TRANSFER.toLocaleString("en")} on).`,
    input: TransferInput,
    output: Transferred,
    approval: {
      policy: "approvers",
      describe: (args) => `Transfer ${formatAmount(args)} to ${args.to}`,
      // Four eyes become six for a large amount.
      quorum: (args) => (args.amount >= LARGE_TRANSFER ? 2 : 1),
      // Nobody decided in half the time: the admins are asked too; a reminder when a fifth is left;
      // unanswered, the money does not move.
      deadline: { escalate: { to: "admins", after: "50%" }, remindBefore: "20%", onExpiry: "reject" },
      // "Allow transfers to this account up to …": same account and currency, an amount up to a cap.
      grantable: {
        fields: { to: "equal", currency: "equal", amount: { atMost: TRANSFER_GRANT_LIMIT } },
        describe: (b) => `transfers to ${boundValue(b, "to")} up to ${boundValue(b, "amount")} ${boundValue(b, "currency")}`,
      },
    },
    async run(args, ctx) {
      const outboxId = ctx.recordInOutbox({ kind: "transfer", details: { ...args } });
      return { transferred: true as const, outboxId, ...standing(ctx) };
    },
  });
  const browserTimezone = defineTool({
    kind: "client",
    name: "get_browser_timezone",
    title: "Time zone",
    description: "Reads the time zone the user's browser is set to.",
    input: z.strictObject({}),
    output: z.strictObject({ timeZone: z.string().min(1).max(100) }),
  });
  const connectApiKey = defineTool({
    kind: "private_input",
    name: "connect_api_key",
    title: "Connect API key",
    description: "Takes the user's API key through a private form and keeps it encrypted at rest.",
    input: z.strictObject({}),
    // writeOnly: the form shows a password field; the value is sent, never shown back.
    form: z.strictObject({ apiKey: z.string().min(8).max(500).meta({ title: "API key", writeOnly: true }) }),
    output: z.strictObject({ connected: z.literal(true) }),
    describe: () => "Enter your API key to connect it.",
    async deliver(value, ctx) {
      await ctx.keepSecret("api_key", value.apiKey);
    },
    respond: () => ({ connected: true as const }),
  });
  const deepResearch = defineTool({
    kind: "external",
    name: "deep_research",
    title: "Deep research",
    description: "Researches a topic in the background, in steps; the report is added to the conversation.",
    input: z.strictObject({ topic: z.string().min(1).max(200) }),
    output: z.strictObject({ topic: z.string(), report: z.string(), sources: z.array(z.string()) }),
    async run({ topic }, progress) {
      for (const [index, label] of RESEARCH_STEPS.entries()) {
        await progress({ step: index, total: RESEARCH_STEPS.length, label });
        await sleep(researchMs / RESEARCH_STEPS.length);
        // The demo's failure: there is nothing to find about nothing.
        if (index === 0 && /^nothing$/i.test(topic.trim())) throw new HarborError("TOOL_FAILED", `No sources found for “${topic}”.`);
      }
      await progress({ step: RESEARCH_STEPS.length, total: RESEARCH_STEPS.length, label: "Done" });
      const sources = [`https://en.wikipedia.org/wiki/${encodeURIComponent(topic.replaceAll(" ", "_"))}`, "https://scholar.example/search"];
      return {
        topic,
        sources,
        report: `Three findings on ${topic}: it is well documented, sources broadly agree, and open questions remain.`,
      };
    },
    report: ({ topic, report, sources }) => `Research on ${topic} is done. ${report} Sources: ${sources.join(", ")}`,
  });
  const calendarToday = defineTool({
    name: "calendar_today",
    title: "Today's calendar",
    description: "Reads today's events from the user's calendar, with their consent at the calendar's provider.",
    input: z.strictObject({}),
    output: CalendarDay,
    auth: { provider: CALENDAR_PROVIDER, scopes: CALENDAR_SCOPES },
    async run(_args, ctx) {
      if (!options.calendarUrl) throw new HarborError("TOOL_FAILED", "No calendar is configured on this server (HARBOR_CALENDAR_URL).");
      const response = await fetch(options.calendarUrl, {
        headers: { authorization: `Bearer ${ctx.accessToken}`, accept: "application/json" },
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status === 401) ctx.credentialRejected();
      if (!response.ok) throw new HarborError("TOOL_FAILED", `The calendar answered HTTP ${response.status}.`);
      const day = CalendarDay.safeParse(await response.json());
      if (!day.success) throw new HarborError("TOOL_FAILED", "The calendar answered something that is not a day of events.");
      return day.data;
    },
  });
  const askTravelAgent = defineTool({
    kind: "remote_agent",
    name: "ask_travel_agent",
    title: "Travel agent",
    description: "Delegates a travel errand to the remote travel agent (A2A); it may ask the user questions first.",
    input: z.strictObject({ request: z.string().min(1).max(500) }),
    output: z.strictObject({ agent: z.string(), status: z.literal("completed"), text: z.string() }),
    agent: options.travelAgent,
    message: ({ request }) => request,
  });
  return [calendarToday, askTravelAgent, deepResearch, sendEmail, transferFunds, browserTimezone, connectApiKey];
}
