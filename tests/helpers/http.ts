/**
 * Speaking to a running Harbor the way programs do: Auth.js credentials sign-in, tRPC over plain
 * JSON, and bearer tokens.
 */
export const DEMO_PASSWORD = "harbor";

function cookiesFrom(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
}

/** Signs in with email and password; returns the Cookie header of the session. */
export async function signIn(baseUrl: string, email: string, password = DEMO_PASSWORD): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiesFrom(csrf);
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.join("; ") },
    body: new URLSearchParams({ email, password, csrfToken }),
  });
  const session = cookiesFrom(res).find((c) => c.startsWith("authjs.session-token="));
  if (!session) throw new Error(`sign-in failed for ${email}: HTTP ${res.status}`);
  return session;
}

/** A CSRF token and its cookie, for posting Credentials sign-ins by hand. */
export async function csrfOf(baseUrl: string): Promise<{ token: string; cookie: string }> {
  const res = await fetch(`${baseUrl}/api/auth/csrf`);
  return { token: ((await res.json()) as { csrfToken: string }).csrfToken, cookie: cookiesFrom(res).join("; ") };
}

/**
 * One Credentials sign-in from `client` (its X-Forwarded-For), with `cookies` besides the CSRF one:
 * the response, whether it opened a session, and the cookies it set (name=value).
 */
export async function credentialsSignIn(
  baseUrl: string,
  csrf: { token: string; cookie: string },
  attempt: { email: string; password: string; client: string; cookies?: string[] },
) {
  const res = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [csrf.cookie, ...(attempt.cookies ?? [])].join("; "),
      "x-forwarded-for": attempt.client,
    },
    body: new URLSearchParams({ email: attempt.email, password: attempt.password, csrfToken: csrf.token }),
  });
  const set = cookiesFrom(res);
  return {
    res,
    status: res.status,
    location: res.headers.get("location") ?? "",
    set,
    signedIn: set.some((c) => c.startsWith("authjs.session-token=")),
  };
}

export type Auth = { cookie: string } | { bearer: string };

export function authHeaders(auth: Auth): Record<string, string> {
  return "cookie" in auth ? { cookie: auth.cookie } : { authorization: `Bearer ${auth.bearer}` };
}

export interface TrpcAnswer<T> {
  status: number;
  data?: T;
  error?: { message: string; code: number; data: { code: string; httpStatus: number; harborCode?: string } };
}

export async function trpcMutation<T>(baseUrl: string, auth: Auth | null, path: string, input: unknown): Promise<TrpcAnswer<T>> {
  const res = await fetch(`${baseUrl}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? authHeaders(auth) : {}) },
    body: JSON.stringify(input),
  });
  return toAnswer<T>(res);
}

export async function trpcQuery<T>(baseUrl: string, auth: Auth | null, path: string, input?: unknown): Promise<TrpcAnswer<T>> {
  const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const res = await fetch(`${baseUrl}/api/trpc/${path}${query}`, { headers: auth ? authHeaders(auth) : {} });
  return toAnswer<T>(res);
}

async function toAnswer<T>(res: Response): Promise<TrpcAnswer<T>> {
  const body = (await res.json()) as { result?: { data: T }; error?: TrpcAnswer<T>["error"] };
  return { status: res.status, data: body.result?.data, error: body.error };
}

/** Creates a bearer token for the signed-in user. */
export async function createToken(baseUrl: string, cookie: string, name = "test"): Promise<{ id: string; token: string }> {
  const answer = await trpcMutation<{ id: string; token: string }>(baseUrl, { cookie }, "tokens.create", { name });
  if (!answer.data) throw new Error(`tokens.create failed: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

export interface SseFrame {
  event?: string;
  id?: string;
  data: string;
}

/** Reads SSE frames from a response until `stop` says so (or the stream ends); then cancels it. */
export async function readSse(res: Response, stop: (frame: SseFrame) => boolean = () => false): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return frames;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const raw = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseFrame = { data: "" };
        for (const line of raw.split("\n")) {
          const [field, ...rest] = line.split(":");
          const text = rest.join(":").replace(/^ /, "");
          if (field === "data") frame.data += text;
          else if (field === "event") frame.event = text;
          else if (field === "id") frame.id = text;
        }
        frames.push(frame);
        if (stop(frame)) return frames;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Opens a tRPC subscription over SSE (as curl -N would). */
export function trpcSubscribe(baseUrl: string, auth: Auth, path: string, input: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { accept: "text/event-stream", ...authHeaders(auth) },
    signal,
  });
}

/** Signs several demo users in at once; their session cookies, in order. */
export function signInAll(baseUrl: string, emails: readonly string[]): Promise<string[]> {
  return Promise.all(emails.map((email) => signIn(baseUrl, email)));
}

/**
 * The three people most protocol tests need: alice (a member, by bearer token), bob (an approver
 * of her tenant) and mallory (another tenant's admin), both by session cookie.
 */
export async function signInCast(baseUrl: string): Promise<{ alice: Auth; bob: Auth; carol: Auth; mallory: Auth }> {
  const [a, b, c, m] = await signInAll(baseUrl, ["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"]);
  return { alice: { bearer: (await createToken(baseUrl, a!)).token }, bob: { cookie: b! }, carol: { cookie: c! }, mallory: { cookie: m! } };
}

/**
 * The id of the run on `threadId` once `runs.list` shows it (with `status`, when given): how a test
 * finds the Harbor run behind an AG-UI request it started. Fails after `timeoutMs`.
 */
export async function runOnThread(baseUrl: string, auth: Auth, threadId: string, status?: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = (await trpcQuery<{ runId: string; threadId: string }[]>(baseUrl, auth, "runs.list", status ? { status } : {})).data ?? [];
    const found = runs.find((r) => r.threadId === threadId)?.runId;
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${status ?? ""} run on thread ${threadId} showed up`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
