/**
 * How events are stored. A snapshot names the last message of its thread instead of copying the
 * transcript: a thread's messages are never changed or deleted while it lives, so "the thread's
 * messages up to this one" is the transcript the snapshot saw, rebuilt on read. A thread of n turns
 * then stores O(n) bytes of snapshots, not O(n²).
 *
 * An edit or a regenerate (runs/rewind-run.ts) only marks the messages it drops with the thread's
 * last position at that moment (`superseded_at_position`). A snapshot through a message at or
 * before that position was taken before the rewind and still shows them; one through a later
 * message was taken after it and does not. (A message added after a rewind has a higher position
 * than every message then; one kept by it is lower than every message it dropped.) A large shared state is stored once per thread and content, by the
 * database as the event is inserted (migration 0021), and put back on read.
 */
import { sql, type SQL } from "drizzle-orm";
import type { RunEvent } from "@/server/domain";
import { runEventCodec } from "../codecs/run-event";

/** A snapshot as stored: its thread's messages up to and including `through` (none when null). */
interface StoredSnapshot {
  type: "snapshot";
  state: Record<string, unknown>;
  through: string | null;
}

/** The event as stored: with its version (see codecs/run-event.ts), a snapshot without its transcript. */
export function storedForm(event: RunEvent): Record<string, unknown> {
  if (event.type !== "snapshot") return runEventCodec.encode(event);
  const snapshot: StoredSnapshot = { type: "snapshot", state: event.state, through: event.messages.at(-1)?.id ?? null };
  return { ...snapshot, v: runEventCodec.version };
}

/**
 * The stored event `e` (a row of run_events) as the RunEvent it stands for: snapshots get their
 * messages back, and a large state stored once by reference (`stateHash`, see migration 0021) too.
 */
export const hydratedData: SQL = sql`case when e.type = 'snapshot' and e.data ? 'through' then
    jsonb_build_object('type', 'snapshot', 'v', coalesce(e.data -> 'v', '1'::jsonb), 'state', case when e.data ? 'stateHash' then (
      select s.state from runs r join snapshot_states s on s.thread_id = r.thread_id and s.hash = e.data ->> 'stateHash'
      where r.id = e.run_id
    ) else e.data -> 'state' end, 'messages', coalesce((
      select jsonb_agg(
        jsonb_build_object('id', m.id, 'role', m.role, 'content', m.content)
          || case when m.tool_calls is null then '{}'::jsonb else jsonb_build_object('toolCalls', m.tool_calls) end
          || case when m.tool_call_id is null then '{}'::jsonb else jsonb_build_object('toolCallId', m.tool_call_id) end
        order by m.position)
      from runs r
        cross join lateral (select x.position from messages x where x.thread_id = r.thread_id and x.id = e.data ->> 'through') through
        join messages m on m.thread_id = r.thread_id
      where r.id = e.run_id
        and m.position <= through.position
        and (m.superseded_at_position is null or m.superseded_at_position >= through.position)
    ), '[]'::jsonb))
  else e.data end`;
