import type { Bindings, Logger } from "pino";

/** The lines a run's code writes: what to record, and a sentence saying what happened. */
export interface RunLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * `parent.child(bindings)`, made when the first line at an enabled level is written. pino
 * stringifies a child's bindings through every redaction path as it makes the child; a run paid
 * that on each turn, and most runs write no line at all.
 */
export function childOnFirstLine(parent: Logger, bindings: Bindings): RunLog {
  let child: Logger | undefined;
  const writer = (level: keyof RunLog) => (fields: object, message: string) => {
    if (parent.isLevelEnabled(level)) (child ??= parent.child(bindings))[level](fields, message);
  };
  return { info: writer("info"), warn: writer("warn"), error: writer("error") };
}
