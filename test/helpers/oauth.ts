/**
 * OAuth test helpers: PKCE material, registration, and a tiny cookie-keeping HTTP "browser" that
 * signs in and answers the consent page by posting forms exactly as a browser would (hidden
 * fields included, Origin set), without following redirects that leave Crew.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { startServer, TEST_PASSWORD, type TestServer } from "./server.ts";

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerClient(base: string, metadata: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ redirect_uris: ["http://127.0.0.1/callback"], client_name: "Test Client", ...metadata }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export function authorizeUrl(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** A newly registered client and the least authorization URL for it: S256 challenge, no redirect_uri, scope or state. */
export async function registeredAuthorizeUrl(base: string): Promise<{ client: Record<string, any>; url: string }> {
  const client = await registerClient(base);
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: client.client_id,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
  });
  return { client, url };
}

const decodeEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" })[e] ?? _);

/** The fields of the first form posting to `action`: hidden inputs (name → value). */
export function formFields(html: string, action: string): URLSearchParams {
  const start = html.search(new RegExp(`<form[^>]*action="${action.replace(/[?]/g, "\\?")}"`));
  if (start < 0) throw new Error(`no form posting to ${action} in page:\n${html.slice(0, 2000)}`);
  const form = html.slice(start, html.indexOf("</form>", start));
  const fields = new URLSearchParams();
  for (const input of form.matchAll(/<input\b[^>]*>/g)) {
    const tag = input[0];
    if (!/type="hidden"/.test(tag)) continue;
    const name = /name="([^"]*)"/.exec(tag)?.[1];
    const value = /value="([^"]*)"/.exec(tag)?.[1] ?? "";
    if (name) fields.append(decodeEntities(name), decodeEntities(value));
  }
  return fields;
}

export interface Step {
  status: number;
  location: string | null;
  html: string;
  url: string;
}

/** A cookie jar and manual redirects: just enough browser for sign-in and consent. */
export class HttpBrowser {
  readonly cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  async request(url: string, init: { method?: string; form?: URLSearchParams; origin?: string | null } = {}): Promise<Step> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (init.form) headers["Content-Type"] = "application/x-www-form-urlencoded";
    if (init.form && init.origin !== null) headers.Origin = init.origin ?? this.base;
    const res = await fetch(new URL(url, this.base), {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      body: init.form?.toString(),
      redirect: "manual",
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.get("location");
    return {
      status: res.status,
      location: location ? new URL(location, this.base).href : null,
      html: await res.text(),
      url: new URL(url, this.base).href,
    };
  }

  /** GET, following redirects while they stay on Crew; stops at a page or at a redirect elsewhere. */
  async walk(url: string): Promise<Step> {
    let step = await this.request(url);
    for (let hops = 0; hops < 10; hops++) {
      const next = step.location;
      if (!next?.startsWith(this.base)) break;
      step = await this.request(next);
    }
    return step;
  }

  async signIn(email: string, password = TEST_PASSWORD, next = "/dashboard"): Promise<Step> {
    const page = await this.request(`/sign-in?next=${encodeURIComponent(next)}`);
    const fields = formFields(page.html, "/sign-in");
    fields.set("email", email);
    fields.set("password", password);
    return this.request("/sign-in", { form: fields });
  }
}

/**
 * Drives an authorization request to its end as a person would: signs in if asked, then answers
 * the consent page with `decision`. Returns the redirect back to the client (or the last page).
 */
export async function authorizeInBrowser(
  browser: HttpBrowser,
  url: string,
  options: { email: string; password?: string; decision?: "approve" | "deny" },
): Promise<Step & { consent?: string }> {
  let step = await browser.walk(url);
  if (step.status === 200 && step.html.includes('action="/sign-in"')) {
    const fields = formFields(step.html, "/sign-in");
    fields.set("email", options.email);
    fields.set("password", options.password ?? TEST_PASSWORD);
    step = await browser.request("/sign-in", { form: fields });
    if (step.location?.startsWith(browser.base)) step = await browser.walk(step.location);
  }
  if (step.status !== 200 || !step.html.includes('action="/oauth/authorize"')) return step;
  const consent = step.html;
  const fields = formFields(consent, "/oauth/authorize");
  fields.set("decision", options.decision ?? "approve");
  const answer = await browser.request("/oauth/authorize", { form: fields });
  return { ...answer, consent };
}

export interface Connection {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
  verifier: string;
  state: string;
  browser: HttpBrowser;
  /** The redirect back to the client, parsed. */
  callback: URL;
  code: string;
}

/**
 * Registers a client (unless `clientId` is given), signs `email` in and answers the consent page.
 * `authorize` overrides or removes (undefined) authorization parameters.
 */
export async function connect(
  base: string,
  email: string,
  options: {
    register?: Record<string, unknown>;
    clientId?: string;
    clientSecret?: string;
    redirectUri?: string;
    authorize?: Record<string, string | undefined>;
    decision?: "approve" | "deny";
    browser?: HttpBrowser;
  } = {},
): Promise<Connection> {
  let clientId = options.clientId;
  let clientSecret = options.clientSecret;
  const registeredUri = (options.register?.redirect_uris as string[] | undefined)?.[0] ?? "http://127.0.0.1/callback";
  if (!clientId) {
    const client = await registerClient(base, { redirect_uris: [registeredUri], ...options.register });
    clientId = client.client_id as string;
    clientSecret = client.client_secret as string | undefined;
  }
  const redirectUri = options.redirectUri ?? registeredUri;
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString("hex");
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "crew:read crew:write",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...options.authorize,
  });
  const browser = options.browser ?? new HttpBrowser(base);
  const step = await authorizeInBrowser(browser, url, { email, decision: options.decision });
  if (!step.location) throw new Error(`authorization ended on a page (${step.status}):\n${step.html.slice(0, 1500)}`);
  const callback = new URL(step.location);
  return { clientId, clientSecret, redirectUri, verifier, state, browser, callback, code: callback.searchParams.get("code") ?? "" };
}

export interface FormResponse {
  status: number;
  json: any;
  headers: Headers;
}

/** POST a form to an OAuth endpoint (token, revoke). */
export async function postForm(
  url: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<FormResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.append(name, value);
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: body.toString(),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

/** The code exchange for a connection, with optional overrides of the form fields. */
export function exchangeCode(
  base: string,
  c: Connection,
  overrides: Record<string, string | undefined> = {},
  headers: Record<string, string> = {},
) {
  return postForm(
    `${base}/oauth/token`,
    {
      grant_type: "authorization_code",
      code: c.code,
      redirect_uri: c.redirectUri,
      code_verifier: c.verifier,
      client_id: c.clientId,
      ...overrides,
    },
    headers,
  );
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

export interface SignedInServer {
  s: TestServer;
  /** An operator's email. */
  email: string;
  /** A browser already signed in as that operator. */
  browser: HttpBrowser;
}

/**
 * Registers beforeAll/afterAll in the calling file (or describe block): a fresh server and one
 * operator signed in once in an HttpBrowser (sign-in hashing is slow by design), handed to `use`.
 */
export function signedInServer(use: (fixture: SignedInServer) => void): void {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startServer();
    const email = (await s.createUser("operator")).email;
    const browser = new HttpBrowser(s.url);
    await browser.signIn(email);
    use({ s, email, browser });
  });
  afterAll(() => s?.close());
}
