/**
 * The run page's timeline in words: each logged event becomes one line a person reads ("Assistant
 * said …", "Tool call send_email", "Approved by bob", "Queued (position 2)") and, where there is
 * more to see, a payload that opens under it. Text streams are folded into the message they end.
 * Private values never enter the run's log; a resume token (a bearer credential) is dropped here too.
 */
import type { RunEvent } from "@/server/domain";

export type Tone = "neutral" | "success" | "warning" | "danger" | "info";

export interface TimelineLine {
  seq: number;
  at: number;
  /** The event's own name, for whoever reads the log itself (shown small, and in the payload). */
  type: RunEvent["type"];
  label: string;
  tone: Tone;
  payload: unknown;
}

/** Who did something, by user id: a name when this page knows one. */
export type Names = ReadonlyMap<string, string>;

/** Keys that never show in a payload (a resume token is a bearer credential). */
export const HIDDEN_KEYS = new Set(["resumeToken"]);

const STEERED: Record<string, string> = {
  INJECT_CONTEXT: "Context added",
  REDIRECT: "Redirected",
  CANCEL: "Cancel requested",
  PRIORITIZE: "Priority changed",
  PAUSE: "Paused",
  RESUME: "Resumed",
  APPROVE: "Gate approved",
  REJECT: "Gate rejected",
  USER_MESSAGE: "Message sent",
};

const DECIDED: Record<"approved" | "rejected" | "cancelled" | "resolved", string> = {
  approved: "Approved",
  rejected: "Rejected",
  cancelled: "Request cancelled",
  resolved: "Answered",
};

const WAITING: Record<string, string> = {
  hitl: "Waiting for approval",
  oauth: "Waiting for a connection",
  a2a: "Waiting for an answer to a remote agent",
  operator: "Held until an operator resumes it",
};

function excerpt(text: string, max = 90): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function who(names: Names, id: string): string {
  return names.get(id) ?? `user ${id.slice(0, 8)}`;
}

function parsed(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** Every event's fields but its type, or null when there are none. */
function rest(event: RunEvent): Record<string, unknown> | null {
  const { type: _type, ...fields } = event;
  return Object.keys(fields).length ? fields : null;
}

/** The timeline's lines from the run's log, in order. */
export function timelineLines(events: readonly { seq: number; at: number; event: RunEvent }[], names: Names): TimelineLine[] {
  const said = new Map<string, string>();
  const tools = new Map<string, string>();
  // Why each pause was asked for: an operator's pause ends "Resumed by …", a request "Approved by …".
  const pauses = new Map<string, string | null>();
  const lines: TimelineLine[] = [];
  for (const { seq, at, event } of events) {
    const line = (label: string, payload: unknown, tone: Tone = "neutral") =>
      lines.push({ seq, at, type: event.type, label, tone, payload });
    switch (event.type) {
      case "text.started":
        break;
      case "text.delta":
        said.set(event.messageId, (said.get(event.messageId) ?? "") + event.delta);
        break;
      case "text.ended": {
        const message = said.get(event.messageId) ?? "";
        line(message ? `Assistant said “${excerpt(message)}”` : "Assistant said a message", { message });
        break;
      }
      case "run.started":
        line(event.resumed ? "Run continued" : `Run started (${event.agentId})`, rest(event), "info");
        break;
      case "tool.call":
        tools.set(event.toolCallId, event.name);
        line(`Tool call ${event.name}`, { tool: event.name, arguments: event.args });
        break;
      case "tool.result": {
        const name = tools.get(event.toolCallId);
        line(name ? `Tool result from ${name}` : "Tool result", { tool: name ?? null, result: parsed(event.content) });
        break;
      }
      case "tool.progress": {
        const name = tools.get(event.toolCallId) ?? "A tool";
        const of = event.total !== undefined ? ` of ${event.total}` : "";
        line(`${name}: ${event.progress}${of}${event.message ? ` — ${excerpt(event.message, 70)}` : ""}`, rest(event), "info");
        break;
      }
      case "pause.requested": {
        pauses.set(event.id, event.reason);
        const base = (event.reason && WAITING[event.reason]) ?? "Waiting for an answer";
        // An operator's pause says nothing its line does not (its message is "Paused by an operator").
        const subject = event.tool
          ? ` for ${event.tool.name}`
          : event.message && event.reason !== "operator"
            ? `: ${excerpt(event.message, 70)}`
            : "";
        line(`${base}${subject}`, rest(event), "warning");
        break;
      }
      case "pause.resumed":
        line(
          `${pauses.get(event.pauseId) === "operator" && event.decision === "resolved" ? "Resumed" : DECIDED[event.decision]} by ${who(names, event.actorId)}`,
          rest(event),
          event.decision === "approved" || event.decision === "resolved" ? "success" : "danger",
        );
        break;
      case "pause.reminder":
        line(`Reminder sent: the request expires at ${new Date(event.expiresAt).toLocaleTimeString()}`, rest(event), "warning");
        break;
      case "pause.escalated":
        line(`Nobody decided in time: escalated to the tenant's ${event.to}`, rest(event), "warning");
        break;
      case "model.retrying":
        line(
          `The model did not answer (${event.reason}): attempt ${event.attempt} of ${event.maxAttempts} in ${(event.delayMs / 1000).toLocaleString()} s`,
          rest(event),
          "warning",
        );
        break;
      case "budget.warning":
        line(
          `${event.scope === "tenant" ? "The workspace's" : "The user's"} ${event.period === "day" ? "daily" : "monthly"} model budget is ${Math.floor((event.used / event.limit) * 100)} % used (${event.used.toLocaleString()} of ${event.limit.toLocaleString()} tokens)`,
          rest(event),
          "warning",
        );
        break;
      case "grant.used":
        line(`${event.toolName} approved in advance by ${who(names, event.grantedBy)} (standing approval)`, rest(event), "success");
        break;
      case "steer.applied":
        line(
          `${STEERED[event.instruction] ?? event.instruction} by ${who(names, event.actorId)}${event.detail ? ` — ${excerpt(event.detail, 70)}` : ""}`,
          rest(event),
          "info",
        );
        break;
      case "client_tool.requested":
        line(`Browser tool ${event.toolName} asked of the owner's browser`, rest(event), "warning");
        break;
      case "external_wait.started":
        line("Waiting on background work", rest(event), "warning");
        break;
      case "children.started":
        line(`Started ${event.runIds.length} helper run${event.runIds.length === 1 ? "" : "s"}`, { runIds: event.runIds }, "info");
        break;
      case "snapshot":
        line(`State snapshot (${event.messages.length} message${event.messages.length === 1 ? "" : "s"})`, {
          messages: event.messages.length,
          state: event.state,
        });
        break;
      case "run.paused":
        line(
          event.interrupts.length ? `Parked: ${event.interrupts.length} open request${event.interrupts.length === 1 ? "" : "s"}` : "Parked",
          event.interrupts.length ? { interrupts: event.interrupts } : null,
          "warning",
        );
        break;
      case "run.queued":
        line(
          `Queued (position ${event.position + 1}${event.position ? `, ${event.position} ahead` : ", next up"})`,
          rest(event),
          "warning",
        );
        break;
      case "run.handed_off":
        line("Handed back by its stopping instance: goes on elsewhere from its last step", rest(event), "warning");
        break;
      case "run.cancelled":
        line(`Cancelled by ${event.by === "owner" ? "its owner" : event.by === "operator" ? "an operator" : "Harbor"}`, null, "danger");
        break;
      case "run.completed":
        line(
          event.status === "rejected" ? "Ended: rejected" : event.status === "cancelled" ? "Ended: cancelled" : "Completed",
          null,
          event.status ? "danger" : "success",
        );
        break;
      case "run.failed":
        line(`Failed: ${excerpt(event.message, 80)}`, { code: event.code, message: event.message }, "danger");
        break;
    }
  }
  return lines;
}
