/**
 * The demo calendar's MCP tools, one function each, registered on a session's server. What they
 * did is kept in `CalendarState`, shared by every session, so tests can see it.
 */
import { randomUUID } from "node:crypto";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { UrlElicitationRequiredError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { IdpAccount } from "./identity-provider";

export const ROOMS = ["Harbor", "Lighthouse", "Dock"] as const;

/** What the calendar remembers across sessions. */
export interface CalendarState {
  /** Where its pages live, e.g. http://127.0.0.1:43210 */
  base(): string;
  stepMs: number;
  cancelledByAccount: Map<string, string[]>;
  /** Pages that allow sharing one account's calendar with one colleague, by elicitation id. */
  sharePages: Map<string, { accountId: string; colleague: string; allowed: boolean }>;
  cancelledCalls: number;
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

/** Registers every tool on `server`; `caller` is who the session's bearer token stands for (or throws). */
export function registerCalendarTools(server: McpServer, state: CalendarState, caller: () => IdpAccount): void {
  listEvents(server, caller);
  cancelEvent(server, state, caller);
  bookRoom(server, caller);
  shareCalendar(server, state, caller);
}

function listEvents(server: McpServer, caller: () => IdpAccount): void {
  server.registerTool(
    "list_events",
    { title: "List today's events", description: "Lists today's events on the team calendar.", annotations: { readOnlyHint: true } },
    () =>
      text(
        eventsOf(caller())
          .map((e) => `${e.start}–${e.end} ${e.title}`)
          .join("\n"),
      ),
  );
}

function cancelEvent(server: McpServer, state: CalendarState, caller: () => IdpAccount): void {
  server.registerTool(
    "cancel_event",
    {
      title: "Cancel an event",
      description: "Cancels an event on the team calendar and tells its attendees.",
      inputSchema: { title: z.string().min(1).max(200).describe("The event's title") },
      annotations: { destructiveHint: true },
    },
    async ({ title }, extra) => {
      const account = caller();
      const token = extra._meta?.progressToken;
      for (const [step, message] of ["Finding the event", "Telling the attendees"].entries()) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: step + 1, total: 2, message },
          });
        }
        await delay(state.stepMs, extra.signal).catch((error: unknown) => {
          // The client cancelled the call (`notifications/cancelled`): nothing is cancelled here.
          state.cancelledCalls++;
          throw error;
        });
      }
      state.cancelledByAccount.set(account.id, [...(state.cancelledByAccount.get(account.id) ?? []), title]);
      return text(`Cancelled "${title}" and told its attendees.`);
    },
  );
}

function bookRoom(server: McpServer, caller: () => IdpAccount): void {
  server.registerTool(
    "book_room",
    {
      title: "Book a meeting room",
      description: "Books a meeting room for an event; asks which room and for how long.",
      inputSchema: { event: z.string().min(1).max(200).describe("What the room is for") },
      annotations: { destructiveHint: false },
    },
    async ({ event }) => {
      caller();
      const answer = await server.server.elicitInput({
        mode: "form",
        message: `Which room should "${event}" have, and for how long?`,
        requestedSchema: {
          type: "object",
          properties: {
            room: { type: "string", title: "Room", enum: [...ROOMS] },
            minutes: { type: "integer", title: "Minutes", minimum: 15, maximum: 240 },
          },
          required: ["room", "minutes"],
        },
      });
      if (answer.action === "decline") return text(`No room booked for "${event}": the user declined.`);
      if (answer.action === "cancel") return text(`No room booked for "${event}": the user cancelled.`);
      const content = z.object({ room: z.enum(ROOMS), minutes: z.number().int() }).parse(answer.content);
      return text(`Booked ${content.room} for "${event}", ${content.minutes} minutes.`);
    },
  );
}

function shareCalendar(server: McpServer, state: CalendarState, caller: () => IdpAccount): void {
  server.registerTool(
    "share_calendar",
    {
      title: "Share the calendar",
      description: "Shares the user's calendar with a colleague; the user allows it on the calendar's own page first.",
      inputSchema: { with: z.string().min(1).max(200).describe("Who to share it with") },
      annotations: { destructiveHint: false },
    },
    ({ with: colleague }) => {
      const account = caller();
      const allowed = [...state.sharePages.values()].some((p) => p.accountId === account.id && p.colleague === colleague && p.allowed);
      if (allowed) return text(`Shared ${account.name}'s calendar with ${colleague}.`);
      const elicitationId = randomUUID();
      state.sharePages.set(elicitationId, { accountId: account.id, colleague, allowed: false });
      throw new UrlElicitationRequiredError([
        {
          mode: "url",
          elicitationId,
          url: `${state.base()}/share/${elicitationId}`,
          message: "Allow sharing on the calendar's page first.",
        },
      ]);
    },
  );
}

function eventsOf(account: IdpAccount) {
  const firstName = account.name.trim().split(/\s+/)[0] || account.email;
  return [
    { start: "09:30", end: "10:00", title: "Team standup" },
    { start: "12:00", end: "13:00", title: `Lunch with ${firstName}'s mentor` },
    { start: "15:00", end: "15:45", title: "Quarterly planning review" },
  ];
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("cancelled"));
      },
      { once: true },
    );
  });
}
