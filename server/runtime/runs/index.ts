/**
 * The face of runtime/runs: starting, driving and steering runs, and the jobs and schedules that
 * start them. See README.md.
 */
export {
  type AbandonedRun,
  type IncomingMessage,
  type RefusedRun,
  type RewindRequest,
  type Rewound,
  runService,
  type StartedRun,
  type StartRunRequest,
} from "./runs";
export { createJobRunner, responseService } from "./jobs";
export { Mailboxes, SteeringInstruction } from "./steering";
export { Scheduler } from "./scheduler";
export type { LoadLimits, LoadReading } from "./load";
