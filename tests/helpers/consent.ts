/**
 * A person at the OAuth provider, without a browser: keeps cookies, follows redirects, signs in and
 * answers the consent page — up to the redirect back to the client's callback, which it returns.
 */

/** A browser in miniature: keeps cookies (by name and path) and follows redirects until told to stop. */
export class ConsentBrowser {
  /** Redirects to an address starting with `stopAt` (the client's callback) are returned, not followed. */
  constructor(private readonly stopAt: string) {}

  private readonly jar = new Map<string, { name: string; value: string; path: string }>();

  /** Follows redirects; stops at a non-redirect answer or at a redirect to `stopAt` (returned unfollowed). */
  async go(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    let current = new URL(url);
    let method = init.method ?? "GET";
    let body: URLSearchParams | undefined = init.form ? new URLSearchParams(init.form) : undefined;
    for (let hops = 0; hops < 10; hops++) {
      const res = await fetch(current, {
        method,
        body,
        redirect: "manual",
        headers: { cookie: this.cookiesFor(current), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      });
      this.store(res, current);
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current, html: await res.text() };
      const next = new URL(location, current);
      if (next.href.startsWith(this.stopAt)) return { res, url: next, html: "" };
      current = next;
      method = "GET";
      body = undefined;
    }
    throw new Error("too many redirects");
  }

  private cookiesFor(url: URL): string {
    return [...this.jar.values()]
      .filter((c) => url.pathname.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  private store(res: Response, url: URL) {
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = line.split(";").map((s) => s.trim());
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attr = (key: string) => attrs.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const path = attr("path") ?? url.pathname;
      const expires = attr("expires");
      const gone = attr("max-age") === "0" || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (gone) this.jar.delete(`${name};${path}`);
      else this.jar.set(`${name};${path}`, { name, value, path });
    }
  }
}

/** The action of the form holding a button labelled `label`. */
export function formAction(html: string, label: string): string {
  for (const form of html.match(/<form[\s\S]*?<\/form>/g) ?? []) {
    if (!new RegExp(`<button[^>]*>\\s*${label}\\s*</button>`).test(form)) continue;
    const action = /action="([^"]+)"/.exec(form)?.[1];
    if (action) return action.replaceAll("&#38;", "&");
  }
  throw new Error(`no form with a "${label}" button in:\n${html}`);
}

/** Signs in at the provider and answers its consent page; returns the (unfollowed) redirect to the callback. */
export async function consentAt(
  authorizationUrl: string,
  account: { email: string; password: string },
  options: { callbackPrefix: string; decision?: "Allow" | "Deny" },
): Promise<URL> {
  const browser = new ConsentBrowser(options.callbackPrefix);
  const login = await browser.go(authorizationUrl);
  if (login.res.status !== 200) throw new Error(`the provider's login page answered ${login.res.status}`);
  const consent = await browser.go(new URL(formAction(login.html, "Sign in"), login.url).href, { method: "POST", form: account });
  if (consent.res.status !== 200) throw new Error(`signing in at the provider answered ${consent.res.status}`);
  const answer = await browser.go(new URL(formAction(consent.html, options.decision ?? "Allow"), consent.url).href, { method: "POST" });
  if (!answer.url.href.startsWith(options.callbackPrefix))
    throw new Error(`the provider did not return to the callback: ${answer.url.href}`);
  return answer.url;
}
