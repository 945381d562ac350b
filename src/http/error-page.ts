/**
 * HTML error pages for browsers (src/docs/notes/web-app.md): a request that asks for HTML (Accept: text/html) and is
 * not for the API gets the error as a page with a way back; API clients keep the JSON envelope.
 * The page is made from the envelope renderError produced, so what is logged and said stays in
 * one place (http/middleware.ts).
 */
import type { Context } from "hono";
import { html } from "hono/html";
import type { AppEnv } from "../deps.ts";
import { layout, SECURITY_HEADERS } from "../html/layout.ts";

/** Paths whose clients are programs: always the JSON envelope there. */
const API_PREFIXES = ["/api/", "/mcp", "/oauth/token", "/oauth/register", "/oauth/revoke", "/.well-known/"];

export function wantsHtmlPage(c: Context<AppEnv>): boolean {
  const path = c.req.path;
  if (API_PREFIXES.some((prefix) => path === prefix.replace(/\/$/, "") || path.startsWith(prefix))) return false;
  return (c.req.header("accept") ?? "").toLowerCase().includes("text/html");
}

const TITLES: Record<number, string> = {
  400: "That request did not work",
  403: "Not allowed",
  404: "Page not found",
  405: "Not available this way",
  413: "Too large",
  415: "Not a form this page takes",
  429: "Too many requests",
  500: "Something went wrong",
};

const EXPLAIN: Record<number, string> = {
  404: "There is no page at this address. It may have moved, or the link has a typo.",
  405: "This address exists, but not for what the browser asked (for example, opening a form's address directly).",
  500: "Crew hit an error it did not expect. Nothing you did caused it; try again, and quote the request id if you report it.",
};

/** The envelope `json` (status, message, request id) as an HTML page; the response's headers (Allow, Retry-After) kept. */
export async function htmlErrorPage(json: Response): Promise<Response> {
  const envelope = (await json
    .clone()
    .json()
    .catch(() => ({}))) as { message?: string; request_id?: string; issues?: { path: string; message: string }[] };
  const status = json.status;
  const title = TITLES[status] ?? "That did not work";
  // A refused input says which value and what it may be, in the field's own words, never the
  // validator's summary ("The form is invalid: agent.").
  const issues = status === 400 ? (envelope.issues ?? []) : [];
  const message = issues.length
    ? html`A value Crew cannot use was sent:<ul>${issues.map((i) => html`<li>${i.path === "(body)" ? "" : html`“${i.path}”: `}${i.message}</li>`)}</ul>`
    : (EXPLAIN[status] ?? envelope.message ?? "");
  const body = html`<section class="card error-page">
  <p class="error-status">Error ${status}</p>
  <h1>${title}</h1>
  <div>${message}</div>
  ${status !== 500 && envelope.message && EXPLAIN[status] ? html`<p class="small muted">${envelope.message}</p>` : ""}
  <p class="error-links"><a class="btn btn-primary" href="/dashboard">Go to the dashboard</a> <a class="btn btn-quiet" href="/docs">Documentation</a></p>
  ${envelope.request_id ? html`<p class="small muted">Request id: <code>${envelope.request_id}</code></p>` : ""}
</section>`;
  const headers = new Headers(json.headers);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.delete("Content-Length");
  return new Response(await layout({ title, body, narrow: true }), { status, headers });
}
