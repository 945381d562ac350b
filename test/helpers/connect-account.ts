/**
 * Walks the connect flow of /settings/connections like a browser: a signed-in tab keeping every
 * cookie (the session and the sealed connect attempt), the form POST with its CSRF token, the
 * fake provider's consent page, its redirect back to Crew's callback. `tamper` changes the
 * callback's query before it is followed (a forged `state`).
 */
import { TEST_PASSWORD, type TestServer } from "./server.ts";

export class CookieTab {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async fetch(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown } = {}): Promise<Response> {
    const target = new URL(url, this.base);
    const headers: Record<string, string> = {};
    if (target.origin === new URL(this.base).origin && this.cookies.size > 0) {
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
    } else if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["Content-Type"] = "application/json";
    }
    const method = init.method ?? (body ? "POST" : "GET");
    if (method !== "GET" && target.origin === new URL(this.base).origin) headers.Origin = new URL(this.base).origin;
    const res = await fetch(target, { method, headers, body, redirect: "manual" });
    if (target.origin === new URL(this.base).origin) {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const [name, ...rest] = (pair ?? "").split("=");
        const value = rest.join("=");
        if (!name) continue;
        if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name.trim());
        else this.cookies.set(name.trim(), value);
      }
    }
    return res;
  }

  async csrf(path: string): Promise<string> {
    const page = await (await this.fetch(path)).text();
    const token = page.match(/name="csrf" value="([^"]+)"/)?.[1];
    if (!token) throw new Error(`no csrf token on ${path}`);
    return token;
  }
}

export async function signedInTab(s: TestServer, email: string): Promise<CookieTab> {
  const tab = new CookieTab(s.url);
  const res = await tab.fetch("/api/auth/sign-in", { json: { email, password: TEST_PASSWORD } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return tab;
}

export interface Walked {
  /** The provider's authorization URL Crew sent the browser to. */
  authorizeUrl: URL;
  /** The callback's final answer. */
  callback: Response;
}

export async function connectAccount(
  tab: CookieTab,
  provider: "google" | "microsoft",
  parts: { mail?: boolean; calendar?: boolean } = { mail: true, calendar: true },
  tamper?: (callback: URL) => void,
): Promise<Walked> {
  const csrf = await tab.csrf("/settings/connections");
  const form: Record<string, string> = { csrf };
  if (parts.mail) form.mail = "on";
  if (parts.calendar) form.calendar = "on";
  const start = await tab.fetch(`/settings/connections/${provider}`, { form });
  if (start.status !== 303) throw new Error(`connect did not redirect: ${start.status} ${await start.text()}`);
  const authorizeUrl = new URL(start.headers.get("location") ?? "");
  const consent = await (await tab.fetch(authorizeUrl.href)).text();
  const action = consent.match(/action="([^"]+)"/)?.[1] ?? "";
  const fields = Object.fromEntries(
    [...consent.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&quot;/g, '"')]),
  );
  const allowed = await tab.fetch(new URL(action, authorizeUrl).href, { form: { ...fields, decision: "allow" } });
  const back = new URL(allowed.headers.get("location") ?? "");
  tamper?.(back);
  const callback = await tab.fetch(back.href);
  return { authorizeUrl, callback };
}
