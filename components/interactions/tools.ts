/** How the UI names tools and their arguments. */
const TOOL_TITLES: Record<string, string> = {
  send_email: "Send an email",
  transfer_funds: "Transfer funds",
  get_browser_timezone: "Time zone",
  deep_research: "Deep research",
  connect_api_key: "Connect API key",
  calendar_today: "Today's calendar",
  ask_travel_agent: "Travel agent",
};

const ARG_LABELS: Record<string, string> = {
  to: "To",
  body: "Message",
  amount: "Amount",
  currency: "Currency",
  timeZone: "time zone",
  request: "Request",
};

/** Tools that never wait on an approval gate: their calls show as notes, not approval cards. */
export const UNGATED_TOOLS = new Set(["calendar_today", "ask_travel_agent"]);

export function toolTitle(name: string): string {
  return TOOL_TITLES[name] ?? name.replaceAll("_", " ");
}

export function argEntries(args: Record<string, unknown>): [string, string][] {
  // An amount reads with its currency, first.
  if (typeof args.amount === "number" && typeof args.currency === "string") {
    const { amount, currency, ...rest } = args;
    return [["Amount", `${amount.toLocaleString("en-US")} ${currency}`], ...argEntries(rest)];
  }
  return Object.entries(args).map(([key, value]) => [ARG_LABELS[key] ?? key, typeof value === "string" ? value : JSON.stringify(value)]);
}

/** What the tool's recorded result says happened. */
export function resultSummary(content: string | undefined): { done: boolean; text: string } | null {
  if (!content) return null;
  try {
    const parsed = JSON.parse(content) as Record<string, unknown>;
    if (parsed.rejected === true) return { done: false, text: parsed.reason === "cancelled" ? "Cancelled" : "Not done" };
    if (parsed.sent === true) return { done: true, text: "Email sent" };
    if (parsed.transferred === true) return { done: true, text: "Transfer made" };
    return { done: true, text: "Done" };
  } catch {
    return { done: true, text: content };
  }
}
