/**
 * A tiny cookie-keeping HTTP client for the web tests: behaves like a browser tab for the one
 * cookie Crew sets (crew_session) and sends Origin on non-GET requests, as browsers do.
 */
import { TEST_PASSWORD, type TestServer } from "../helpers/server.ts";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
  setCookie: string | null;
}

export interface RequestInit {
  method?: string;
  json?: unknown;
  form?: Record<string, string | string[]>;
  /** Origin to send on non-GET requests; default the server's own; null sends none. */
  origin?: string | null;
  headers?: Record<string, string>;
}

export class Browserish {
  cookie: string | null = null;
  constructor(readonly base: string) {}

  async request(path: string, init: RequestInit = {}): Promise<Reply> {
    const method = init.method ?? (init.json !== undefined || init.form ? "POST" : "GET");
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookie) headers.Cookie = `crew_session=${this.cookie}`;
    if (method !== "GET" && init.origin !== null) headers.Origin = init.origin ?? new URL(this.base).origin;
    let body: string | undefined;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["Content-Type"] = "application/json";
    } else if (init.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      body = params.toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
    }
    const res = await fetch(this.base + path, { method, headers, body, redirect: "manual" });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    const setCookie = res.headers.get("set-cookie");
    const match = setCookie?.match(/crew_session=([^;]*)/);
    if (match) this.cookie = match[1] || null;
    return { status: res.status, headers: res.headers, text, json, setCookie };
  }

  /** Signs in through the JSON endpoint; throws unless it worked. */
  async signIn(email: string, password = TEST_PASSWORD): Promise<Reply> {
    const reply = await this.request("/api/auth/sign-in", { json: { email, password } });
    if (reply.status !== 200) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
    return reply;
  }

  /** The csrf token of the signed-in session, read from a page's form. */
  async csrfToken(path = "/settings/keys"): Promise<string> {
    const page = await this.request(path);
    const token = page.text.match(/name="csrf" value="([^"]+)"/)?.[1];
    if (!token) throw new Error(`no csrf token on ${path} (${page.status})`);
    return token;
  }
}

export async function signedIn(
  s: TestServer,
  plan: Parameters<TestServer["createUser"]>[0] = "operator",
  role: Parameters<TestServer["createUser"]>[2] = "member",
) {
  const user = await s.createUser(plan, undefined, role);
  const tab = new Browserish(s.url);
  await tab.signIn(user.email);
  return { user, tab };
}
