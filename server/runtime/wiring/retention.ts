/**
 * The retention room: the sweep (started with the runtime's life) and what admins see and change.
 * Off by default in the runtime itself: the defaults keep everything until the settings say otherwise.
 */
import { retentionService, type RetentionSettings } from "../retention";
import type { RuntimeDeps } from "./deps";

const KEEP_EVERYTHING: RetentionSettings = { conversationDays: 0, auditDays: 0, everyMs: 3_600_000, batch: 500 };

export function composeRetention(deps: RuntimeDeps, instanceId: string) {
  return retentionService({ db: deps.db, log: deps.log, instanceId, retention: deps.retention ?? KEEP_EVERYTHING });
}

export type RetentionRoom = ReturnType<typeof composeRetention>;
