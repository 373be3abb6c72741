/**
 * Structured JSON logs. Redaction is configured here, once, so that secrets and private
 * values are removed by path wherever they appear in a log object.
 */
import { randomUUID } from "node:crypto";
import pino, { type Bindings, type Logger } from "pino";

/** Keys whose values are never written to a log, at the top level and one or two levels deep. */
const SECRET_KEYS = [
  "password",
  "passwordHash",
  "token",
  "tokenHash",
  "apiKey",
  "secret",
  "authorization",
  "cookie",
  "resumeToken",
  "payload",
  "privateValue",
  "accessToken",
  "refreshToken",
  "access_token",
  "refresh_token",
  "id_token",
  "idToken",
  "clientSecret",
  "client_secret",
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers["set-cookie"]',
  "resume[*].payload",
  "*.resume[*].payload",
];

/** Drizzle's "Failed query: … params: <values>" — the values are user data. */
const QUERY_PARAMS = /\nparams: [\s\S]*?(?=\n {4}at |$)/;

type SerializedError = Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown };

/** An error as pino writes it, minus the query values that database errors carry. */
function scrubError(error: SerializedError): SerializedError {
  // `client` is the pg connection a pool error carries: noise, and it repeats connection settings.
  // `where` is PostgreSQL's context, which quotes the text around a bad value (a JSON parameter's rows).
  const { params: _params, client: _client, where: _where, ...rest } = error;
  const scrubbed: SerializedError = { ...rest };
  for (const key of ["message", "stack"] as const) {
    const text = scrubbed[key];
    if (typeof text === "string") scrubbed[key] = text.replace(QUERY_PARAMS, "\nparams: [redacted]");
  }
  if (scrubbed.cause && typeof scrubbed.cause === "object") scrubbed.cause = scrubError(scrubbed.cause as SerializedError);
  return scrubbed;
}

export function createLogger(options: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      // Read directly, not through settings(): loggers exist before anything else is configured.
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      base: { service: "harbor" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      serializers: { err: (error: Error) => scrubError(pino.stdSerializers.err(error) as unknown as SerializedError) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

export const log = createLogger();

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's `x-request-id` when it is well-formed, else a fresh one. */
export function requestIdFrom(headers: Headers): string {
  const given = headers.get("x-request-id");
  return given && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The lines a request's or a run's code writes: what to record, and a sentence saying what happened. */
export interface LogLines {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * `parent.child(bindings)`, made when the first line at an enabled level is written. pino
 * stringifies a child's bindings through every redaction path as it makes the child; each request
 * and each run paid that, and most write no line at all.
 */
export function childOnFirstLine(parent: Logger, bindings: Bindings): LogLines {
  let child: Logger | undefined;
  const writer = (level: keyof LogLines) => (fields: object, message: string) => {
    if (parent.isLevelEnabled(level)) (child ??= parent.child(bindings))[level](fields, message);
  };
  return { info: writer("info"), warn: writer("warn"), error: writer("error") };
}

/** A logger that stamps every line with the request id. */
export function requestLogger(requestId: string): LogLines {
  return childOnFirstLine(log, { requestId });
}
