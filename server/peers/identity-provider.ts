/**
 * The demo's embedded identity provider: a real OAuth 2.0 / OpenID Connect authorization server
 * (oidc-provider) with its own login and consent pages, plus a tiny protected resource,
 * `GET /calendar/today`, that accepts the access tokens it issues. Harbor is its only client — for
 * the calendar tool, and (a second client) for signing in to Harbor itself (`sign-in-client.ts`).
 *
 * Everything lives in memory and on one loopback port, so it starts in milliseconds and
 * disappears with the process; it is a stand-in for a third-party provider, not a product.
 */
import { generateKeyPair, randomBytes, createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./listen";
import { promisify } from "node:util";
// oidc-provider ships no type declarations and @types/oidc-provider is not a dependency. The
// structural types below describe the little of it this module uses, so nothing untyped escapes.
import { loadOidcProvider, memoryAdapter } from "./oidc-provider-module";
import { log } from "@/server/log";
import { accountClaims, firstPartyGrant, SCOPE_CLAIMS, SIGN_IN_SCOPES, signInClientEntry, type SignInClient } from "./sign-in-client";

export interface IdpAccount {
  id: string;
  email: string;
  name: string;
  password: string;
  /** The `groups` claim (Harbor's sign-in maps it to roles). */
  groups?: readonly string[];
  /** The `email_verified` claim; true unless said otherwise. */
  emailVerified?: boolean;
}

export interface IdentityProviderOptions {
  /** 0 or absent: a port the system picks. The server always binds 127.0.0.1. */
  port?: number;
  /** The one client: Harbor. */
  client: { clientId: string; clientSecret: string; redirectUris: string[] };
  /** Harbor's sign-in client (single sign-on), when Harbor signs people in here. */
  signInClient?: SignInClient;
  accounts: readonly IdpAccount[];
  /** Default 3600; tests use ~2 to exercise refresh. */
  accessTokenTtlSeconds?: number;
  /** Called with each bearer token the calendar receives (tests prove the resource saw the token). */
  onCalendarRequest?: (accessToken: string) => void;
}

export interface RunningIdentityProvider {
  /** e.g. http://127.0.0.1:43123 */
  issuer: string;
  /** e.g. http://127.0.0.1:43123/calendar/today */
  calendarUrl: string;
  /** The account a bearer token stands for when it grants `scope` (what a protected resource checks), or why not. */
  verifyAccessToken(value: string, scope: string): Promise<IdpAccount | string>;
  /** Revokes every grant of an account (as if the user revoked Harbor's access at the provider). */
  revokeAccount(accountId: string): Promise<void>;
  /** Changes an account's claims (as an administrator of the provider would); unknown ids are ignored. */
  updateAccount(accountId: string, changes: Partial<Pick<IdpAccount, "email" | "name" | "groups" | "emailVerified">>): void;
  close(): Promise<void>;
}

export const CALENDAR_SCOPE = "calendar.read";
const CLIENT_NAME = "Harbor";
const MAX_FORM_BYTES = 8 * 1024;
const DAY = 24 * 60 * 60;

/** What the consent page says each scope lets Harbor do. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: "confirm which account you signed in with",
  offline_access: "keep this access while you are away, until you revoke it",
  [CALENDAR_SCOPE]: "read your calendar",
  email: "see your email address",
  profile: "see your name",
  groups: "see the groups you belong to",
};

// ---------------------------------------------------------------------------------------------
// The slice of oidc-provider's API used here.

interface AccessTokenRecord {
  accountId?: string;
  clientId?: string;
  grantId?: string;
  scopes: Set<string>;
  isExpired: boolean;
}

interface GrantRecord {
  jti: string;
  accountId?: string;
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
  destroy(): Promise<void>;
}

interface InteractionDetails {
  uid: string;
  prompt: {
    name: string;
    details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  };
  params: { client_id?: unknown; scope?: unknown; login_hint?: unknown };
  session?: { accountId?: string };
  grantId?: string;
}

type InteractionResult =
  { login: { accountId: string } } | { consent: { grantId?: string } } | { error: string; error_description?: string };

interface TokenModel {
  revokeByGrantId(grantId: string): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Provider {
  callback(): Handler;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: InteractionResult,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  on(event: "grant.saved", listener: (grant: GrantRecord) => void): void;
  on(event: "server_error", listener: (ctx: unknown, error: Error) => void): void;
  AccessToken: TokenModel & { find(value: string): Promise<AccessTokenRecord | undefined> };
  RefreshToken: TokenModel;
  AuthorizationCode: TokenModel;
  Grant: {
    new (init: { accountId: string; clientId: string }): GrantRecord;
    find(id: string): Promise<GrantRecord | undefined>;
  };
}

type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => Provider;

interface ClientLike {
  clientId?: string;
}

/** What oidc-provider hands `renderError`: a Koa context we only write the page to. */
interface ErrorPageContext {
  type: string;
  body: string;
  status: number;
}

// ---------------------------------------------------------------------------------------------

export async function startIdentityProvider(options: IdentityProviderOptions): Promise<RunningIdentityProvider> {
  const accounts = new Map(options.accounts.map((a) => [a.id, a]));
  const grantsByAccount = new Map<string, Set<string>>();
  // Filled once the provider exists, which is after the port is bound.
  const started: { provider?: Provider; handler?: Handler } = {};

  const server = createServer((req, res) => {
    // The port is bound before the provider exists; nothing legitimate knows it yet, but answer anyway.
    const { provider, handler } = started;
    if (!provider || !handler) return sendPage(res, 503, "Starting", "<p>The provider is starting. Try again.</p>");
    route(provider, handler, req, res).catch((error: unknown) => {
      if (error instanceof FormTooLargeError && !res.headersSent) return sendPage(res, 413, "Too large", "<p>That form was too large.</p>");
      log.error({ err: error, path: pathOf(req) }, "identity provider request failed");
      if (!res.headersSent) sendPage(res, 500, "Something went wrong", "<p>Something went wrong. Go back to Harbor and try again.</p>");
      else res.destroy();
    });
  });

  // Listen first: the issuer must name the real port, and that is only known once bound.
  const issuer = await listenOnLoopback(server, options.port);

  let provider: Provider;
  try {
    const Provider = (await loadOidcProvider()) as ProviderConstructor;
    provider = new Provider(issuer, await configuration(options, accounts));
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  provider.on("server_error", (_ctx, error) => log.error({ err: error }, "identity provider error"));
  // Remember which grants belong to whom, so `revokeAccount` can find them: the memory adapter
  // has no query by account.
  provider.on("grant.saved", (grant) => {
    if (!grant.accountId) return;
    const ids = grantsByAccount.get(grant.accountId) ?? new Set<string>();
    ids.add(grant.jti);
    grantsByAccount.set(grant.accountId, ids);
  });
  started.provider = provider;
  started.handler = provider.callback();

  async function route(p: Provider, handler: Handler, req: IncomingMessage, res: ServerResponse) {
    const path = pathOf(req);
    if (path === "/calendar/today") return calendar(p, req, res);
    const interaction = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|confirm|abort))?$/.exec(path);
    if (interaction) return interact(p, req, res, interaction[1] ?? "", interaction[2]);
    handler(req, res);
  }

  // --- interactions: login, then consent -------------------------------------------------------

  async function interact(p: Provider, req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const expectedMethod = action ? "POST" : "GET";
    if (req.method !== expectedMethod) {
      res.setHeader("Allow", expectedMethod);
      return sendPage(res, 405, "Not allowed", "<p>That is not how this page is used.</p>");
    }

    let details: InteractionDetails;
    try {
      // Found through the interaction cookie, so a form posted from another site has nothing to act on.
      details = await p.interactionDetails(req, res);
    } catch (error) {
      log.info({ err: error }, "identity provider interaction not found");
      return expiredInteraction(res);
    }
    if (details.uid !== uid) return expiredInteraction(res);
    const prompt = details.prompt.name;

    if (!action) {
      if (prompt === "login") return sendPage(res, 200, "Sign in", loginForm(uid, stringParam(details.params.login_hint)));
      if (prompt === "consent") {
        const account = details.session?.accountId ? accounts.get(details.session.accountId) : undefined;
        return sendPage(res, 200, "Allow access", consentForm(uid, details, account));
      }
      return sendPage(res, 400, "Cannot continue", "<p>This request needs something this provider cannot ask for.</p>");
    }

    if (action === "login" && prompt === "login") {
      const form = await readForm(req);
      const account = authenticate(form.get("email") ?? "", form.get("password") ?? "");
      if (!account) {
        log.info("identity provider sign-in refused");
        return sendPage(res, 401, "Sign in", loginForm(uid, form.get("email") ?? "", "That email and password do not match an account."));
      }
      return p.interactionFinished(req, res, { login: { accountId: account.id } }, { mergeWithLastSubmission: false });
    }

    if (action === "confirm" && prompt === "consent") {
      await readForm(req);
      const accountId = details.session?.accountId;
      const clientId = stringParam(details.params.client_id);
      if (!accountId || !clientId) return expiredInteraction(res);
      // Grant exactly what the consent prompt reported missing (the page listed those scopes).
      const existing = details.grantId ? await p.Grant.find(details.grantId) : undefined;
      const grant = existing ?? new p.Grant({ accountId, clientId });
      const missing = details.prompt.details;
      if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
      if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, scopes.join(" "));
      }
      const grantId = await grant.save();
      // A new grant must be named in the result; an updated one is already the interaction's.
      const consent = existing ? {} : { grantId };
      return p.interactionFinished(req, res, { consent }, { mergeWithLastSubmission: true });
    }

    if (action === "abort") {
      await readForm(req);
      const result = { error: "access_denied", error_description: "The user did not allow access." };
      return p.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }

    return expiredInteraction(res);
  }

  function authenticate(email: string, password: string): IdpAccount | undefined {
    const wanted = email.trim().toLowerCase();
    const account = [...accounts.values()].find((a) => a.email.toLowerCase() === wanted);
    // Compare digests so the comparison takes the same time whatever the lengths, and compare
    // even for unknown emails so timing does not tell which accounts exist.
    const ok = timingSafeEqual(digest(password), digest(account?.password ?? randomBytes(16).toString("hex")));
    return account && ok ? account : undefined;
  }

  // --- the protected resource ------------------------------------------------------------------

  /** The account a bearer token of Harbor's stands for, or why it is refused. */
  async function verify(p: Provider, value: string, scope: string): Promise<IdpAccount | string> {
    const token = await p.AccessToken.find(value);
    // `find` honours oidc-provider's 15 s clock tolerance; a resource server owns its clock, so
    // expiry is checked exactly.
    if (!token || token.isExpired) return "The access token is expired, revoked or unknown.";
    if (token.clientId !== options.client.clientId) return "The access token was not issued to Harbor.";
    if (!token.scopes.has(scope)) return `The access token does not allow ${scope}.`;
    if (!token.grantId || !(await p.Grant.find(token.grantId))) return "The access was revoked.";
    const account = token.accountId ? accounts.get(token.accountId) : undefined;
    return account ?? "The account no longer exists.";
  }

  async function calendar(p: Provider, req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "GET") {
      res.setHeader("Allow", "GET");
      return sendJson(res, 405, { error: "method_not_allowed" });
    }
    const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(req.headers.authorization ?? "");
    const value = match?.[1];
    if (!value) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="calendar"');
      return sendJson(res, 401, { error: "invalid_request", message: "An access token is required." });
    }
    options.onCalendarRequest?.(value);

    const reject = (message: string) => {
      res.setHeader("WWW-Authenticate", `Bearer realm="calendar", error="invalid_token", error_description="${message}"`);
      return sendJson(res, 401, { error: "invalid_token", message });
    };
    const account = await verify(p, value, CALENDAR_SCOPE);
    if (typeof account === "string") return reject(account);

    return sendJson(res, 200, {
      date: localDate(new Date()),
      account: { email: account.email, name: account.name },
      events: demoEvents(account),
    });
  }

  return {
    issuer,
    calendarUrl: `${issuer}/calendar/today`,
    verifyAccessToken: async (value, scope) => (provider ? verify(provider, value, scope) : "The provider is not running."),
    async revokeAccount(accountId) {
      const p = provider;
      if (!p) return;
      const grantIds = [...(grantsByAccount.get(accountId) ?? [])];
      grantsByAccount.delete(accountId);
      await Promise.all(
        grantIds.map(async (grantId) => {
          // Tokens first, then the grant itself, as oidc-provider's own revocation does.
          await Promise.all([p.AccessToken, p.RefreshToken, p.AuthorizationCode].map((m) => m.revokeByGrantId(grantId)));
          await (await p.Grant.find(grantId))?.destroy();
        }),
      );
    },
    updateAccount(accountId, changes) {
      const account = accounts.get(accountId);
      if (account) accounts.set(accountId, { ...account, ...changes });
    },
    close: () => closeServer(server),
  };
}

async function configuration(options: IdentityProviderOptions, accounts: Map<string, IdpAccount>): Promise<Record<string, unknown>> {
  const { client } = options;
  return {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        client_name: CLIENT_NAME,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
        scope: ["openid", "offline_access", CALENDAR_SCOPE].join(" "),
      },
      ...(options.signInClient ? [signInClientEntry(options.signInClient)] : []),
    ],
    scopes: [...new Set<string>([...SIGN_IN_SCOPES, CALENDAR_SCOPE])],
    claims: SCOPE_CLAIMS,
    async findAccount(_ctx: unknown, sub: string) {
      if (!accounts.has(sub)) return undefined;
      // Read when asked, so a changed account (`updateAccount`) shows in the next token or userinfo answer.
      return {
        accountId: sub,
        claims: async () => {
          const account = accounts.get(sub);
          return account ? accountClaims(account) : { sub };
        },
      };
    },
    loadExistingGrant: firstPartyGrant(options.signInClient?.clientId),
    // A fresh signing key per process: ID tokens only need to verify while this process lives.
    jwks: { keys: [await signingKey()] },
    // Per-process cookie keys: restarting the provider signs everyone out, which a demo can afford.
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    pkce: { required: () => true },
    // Harbor always gets a refresh token from the code flow, whether or not it asked for
    // offline_access (the default issues one only for offline_access, and drops offline_access
    // when `prompt` is present without `consent`).
    issueRefreshToken: async (_ctx: unknown, c: { grantTypeAllowed(type: string): boolean }) => c.grantTypeAllowed("refresh_token"),
    // Harbor's access outlives the user's browser session at the provider; it ends on revocation.
    expiresWithSession: async () => false,
    // Explicit lifetimes (oidc-provider logs a notice for each default it falls back to). The grant
    // and refresh token outlive any demo; the access token is short enough that refresh gets used.
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 60 * 60,
      Session: DAY,
      Grant: 30 * DAY,
      RefreshToken: 30 * DAY,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      // Only Harbor's own tokens; anything else is ignored with the usual 200 (RFC 7009).
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: unknown, client: ClientLike, token: ClientLike) => token.clientId === client.clientId,
      },
    },
    // The default error page loads a web font; this one has no external assets.
    async renderError(ctx: ErrorPageContext, out: Record<string, unknown>) {
      const lines = Object.entries(out).map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`);
      ctx.type = "html";
      ctx.body = page("Something went wrong", `<h1>Something went wrong</h1>${lines.join("")}`);
    },
  };
}

async function signingKey(): Promise<JsonWebKey & { kid: string }> {
  const { privateKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 });
  return { ...privateKey.export({ format: "jwk" }), alg: "RS256", use: "sig", kid: randomBytes(8).toString("hex") };
}

// --- pages --------------------------------------------------------------------------------------

function loginForm(uid: string, email: string, error?: string): string {
  return `<h1>Sign in</h1>
<p class="muted">to continue to ${escapeHtml(CLIENT_NAME)}</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
  <label>Email<input type="email" name="email" value="${escapeHtml(email)}" autocomplete="username" required autofocus></label>
  <label>Password<input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`;
}

function consentForm(uid: string, details: InteractionDetails, account: IdpAccount | undefined): string {
  const requested = stringParam(details.params.scope).split(" ").filter(Boolean);
  const items = requested.map((scope) => {
    const what = SCOPE_DESCRIPTIONS[scope] ?? "use a permission this page cannot describe";
    return `<li>${escapeHtml(what)} (${escapeHtml(scope)})</li>`;
  });
  return `<h1>Allow access</h1>
<p>${escapeHtml(CLIENT_NAME)} wants to:</p>
<ul>${items.join("")}</ul>
${account ? `<p class="muted">Signed in as ${escapeHtml(account.email)}</p>` : ""}
<div class="actions">
  <form method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit" class="secondary">Deny</button></form>
  <form method="post" action="/interaction/${escapeHtml(uid)}/confirm"><button type="submit">Allow</button></form>
</div>`;
}

function expiredInteraction(res: ServerResponse): void {
  sendPage(res, 400, "Sign-in expired", "<h1>This sign-in has expired</h1><p>Go back to Harbor and start again.</p>");
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#111827;
  font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:380px;margin:24px;padding:32px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.1),0 8px 24px rgba(0,0,0,.06)}
h1{margin:0 0 8px;font-size:22px}
.muted{margin:0 0 20px;color:#6b7280}
.error{margin:0 0 16px;padding:10px 12px;border-radius:8px;background:#fef2f2;color:#991b1b}
label{display:block;margin-bottom:14px;font-size:14px;font-weight:500}
input{display:block;width:100%;margin-top:4px;padding:9px 11px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
input:focus{outline:2px solid #2563eb;outline-offset:-1px}
button{width:100%;padding:10px 14px;border:0;border-radius:8px;background:#2563eb;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#e5e7eb;color:#111827}
ul{padding-left:20px}
.actions{display:flex;gap:12px}
.actions form{flex:1}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

function sendPage(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    // Inline styles only; no scripts; never framed (so the forms cannot be clickjacked).
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "x-frame-options": "DENY",
  });
  res.end(page(title, body));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

// --- helpers ------------------------------------------------------------------------------------

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function stringParam(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? "/", "http://localhost").pathname;
}

class FormTooLargeError extends Error {}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new FormTooLargeError();
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** Today in the server's time zone, as YYYY-MM-DD. */
function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function demoEvents(account: IdpAccount): { start: string; end: string; title: string }[] {
  const firstName = account.name.trim().split(/\s+/)[0] || account.email;
  return [
    { start: "09:30", end: "10:00", title: "Team standup" },
    { start: "12:00", end: "13:00", title: `Lunch with ${firstName}'s mentor` },
    { start: "15:00", end: "15:45", title: "Quarterly planning review" },
  ];
}

function closeServer(server: ReturnType<typeof createServer>): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive and half-finished connections would hold `close` open; end them now.
    server.closeAllConnections();
  });
}
