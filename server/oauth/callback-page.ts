/**
 * The page the provider's redirect lands on. It says plainly what happened; on success it tells the
 * chat that opened it (a popup) and closes, or — opened in place — returns to the conversation.
 */
import type { ErrorCode } from "@/server/runtime";

/** The refusal page's title, by code. */
export const CONSENT_TITLES: Partial<Record<ErrorCode, string>> = {
  INVALID_INPUT: "This link is not valid",
  FORBIDDEN: "This connection is not yours",
  NOT_FOUND: "Nothing is waiting for this connection",
  EXPIRED: "This request expired",
  ALREADY_RESOLVED: "This link was already used",
  INTERACTION_LOST: "This request can no longer be answered",
  OAUTH_FAILED: "The provider did not accept the sign-in",
};

const STYLE = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1f2430;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border:1px solid #dfe2e8;border-radius:12px;padding:28px 32px;max-width:440px;box-shadow:0 6px 24px rgba(20,30,60,.08)}
h1{font-size:20px;margin:0 0 10px}p{line-height:1.5;margin:0 0 14px;color:#454b5a}a{color:#2456d6;font-weight:600}
.ok h1{color:#17794a}.bad h1{color:#b3261e}`;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function page(status: number, tone: "ok" | "bad", title: string, body: string, script = ""): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)} · Harbor</title><style>${STYLE}</style></head><body><main class="${tone}" role="main"><h1>${escape(title)}</h1>${body}</main>${script}</body></html>`;
  return new Response(html, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer" },
  });
}

/** Connected (or declined): back to the conversation, which follows the run as it continues. */
export function consentDonePage(outcome: "connected" | "declined", threadId: string, providerName: string): Response {
  const chat = `/chat/${encodeURIComponent(threadId)}`;
  const message = JSON.stringify({ type: "harbor.oauth", outcome, threadId });
  // public/oauth-done.js tells the chat that opened this window (same origin only), or goes back to it.
  const script = `<script src="/oauth-done.js" data-message="${escape(message)}" data-chat="${escape(chat)}"></script>`;
  return outcome === "connected"
    ? page(
        200,
        "ok",
        `${providerName} connected`,
        `<p>Your conversation continues where it stopped.</p><p><a href="${escape(chat)}">Back to the conversation</a></p>`,
        script,
      )
    : page(
        200,
        "bad",
        "Connection declined",
        `<p>Nothing was connected; the request in your conversation was cancelled.</p><p><a href="${escape(chat)}">Back to the conversation</a></p>`,
        script,
      );
}

export function consentRefusedPage(status: number, title: string, message: string): Response {
  return page(status, "bad", title, `<p>${escape(message)}</p><p>Nothing was changed. <a href="/chat">Back to the chat</a></p>`);
}

export function signInFirstPage(returnTo: string): Response {
  return page(
    401,
    "bad",
    "Sign in to finish connecting",
    `<p>This connection belongs to a Harbor account: sign in as the person who asked, and it will finish.</p><p><a href="/signin?callbackUrl=${encodeURIComponent(returnTo)}">Sign in</a></p>`,
  );
}
