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
