/**
 * The page layout every server-rendered page shares (sign-in, setup, dashboard, keys, connected
 * apps, consent), and the response helper that adds the security headers HTML needs. Markup is
 * `html` tagged templates (hono/html): values are escaped, no JSX, no build step. No inline script
 * or style: the CSP allows only Crew's own /static files.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { html } from "hono/html";
import type { AppEnv } from "../deps.ts";
import type { User } from "../store/auth/users.ts";
import { words } from "./words.ts";

export type Html = ReturnType<typeof html>;

/** The signed-in person a page is for; the csrf token goes into every form (sign-out included). */
export interface PageAccount {
  user: Pick<User, "email" | "name" | "plan"> & Partial<Pick<User, "role" | "timeZone">>;
  csrfToken: string;
}

export interface PageOptions {
  title: string;
  body: Html;
  /** Omit on pages for signed-out visitors (sign-in, setup). */
  account?: PageAccount | null;
  /** Which nav entry is current: its href, e.g. "/dashboard". */
  active?: string;
  /** Narrow centred card, for forms such as sign-in and setup. */
  narrow?: boolean;
  /** The person's chosen theme (renderPage reads it from the theme cookie); absent: the system's. */
  theme?: Theme;
  /** This page's path and query, where the theme form comes back to. */
  here?: string;
}

/** The colour themes a person may choose; `system` follows `prefers-color-scheme`. */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];
/** Remembered in this browser (src/docs/notes/web-app.md#plain-words-and-dark-mode): a cookie the pages read, not a record. */
export const THEME_COOKIE = "crew_theme";
const THEME_TEXT: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

export function themeOf(c: Context<AppEnv>): Theme {
  const chosen = getCookie(c, THEME_COOKIE);
  return (THEMES as readonly string[]).includes(chosen ?? "") ? (chosen as Theme) : "system";
}

export interface NavEntry {
  href: string;
  label: string;
  /**
   * `work`: the main bar (reading and acting); the Settings menu has `organization` (what owners
   * manage for everyone) and `you` (the person's own connections and preferences).
   */
  group: "work" | "organization" | "you";
  /** Shown to owners only (their pages answer members with a 403 page too). */
  ownerOnly?: boolean;
}

/** The one list of pages in the navigation: a new page adds its entry here. */
export const NAV: NavEntry[] = [
  { href: "/dashboard", label: "Dashboard", group: "work" },
  { href: "/briefing", label: "Briefing", group: "work" },
  { href: "/standup", label: "Standup", group: "work" },
  { href: "/actions", label: "Actions", group: "work" },
  { href: "/suggestions", label: "Suggestions", group: "work" },
  { href: "/profile", label: "Profile", group: "work" },
  { href: "/contacts", label: "Contacts", group: "work" },
  { href: "/feed", label: "Feed", group: "work" },
  { href: "/handoffs", label: "Handoffs", group: "work" },
  { href: "/settings/users", label: "Users", group: "organization", ownerOnly: true },
  { href: "/settings/model", label: "Model", group: "organization", ownerOnly: true },
  { href: "/settings/sources", label: "Sources", group: "organization", ownerOnly: true },
  { href: "/settings/slack", label: "Slack", group: "organization", ownerOnly: true },
  { href: "/settings/webhooks", label: "Webhooks", group: "organization", ownerOnly: true },
  { href: "/settings/audit", label: "Audit log", group: "organization", ownerOnly: true },
  { href: "/settings/backups", label: "Backups", group: "organization", ownerOnly: true },
  { href: "/settings/notifications", label: "Notifications", group: "you" },
  { href: "/settings/connections", label: "Connections", group: "you" },
  { href: "/settings/calendar", label: "Calendar", group: "you" },
  { href: "/settings/keys", label: "API keys", group: "you" },
  { href: "/connected-apps", label: "Connected apps", group: "you" },
];

/**
 * What every page adds itself; the security headers (CSP, nosniff, framing, referrer, COOP) are
 * set on every page by one middleware, src/http/security-headers.ts.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  // Pages show per-user data (and once, a raw key): never cache them.
  "Cache-Control": "no-store",
};

/** A CSRF hidden field: every state-changing form of a signed-in page carries one. */
export const csrfField = (account: PageAccount) => html`<input type="hidden" name="csrf" value="${account.csrfToken}">`;

/** System, Light or Dark: three buttons of one form (works without JavaScript), the current one pressed. */
function themeForm(account: PageAccount, theme: Theme, here: string): Html {
  return html`<form method="post" action="/settings/theme" class="theme-form">
          ${csrfField(account)}<input type="hidden" name="back" value="${here}">
          <fieldset><legend>Theme</legend>${THEMES.map(
            (t) =>
              html`<button type="submit" name="theme" value="${t}" class="btn btn-small btn-quiet" aria-pressed="${t === theme ? "true" : "false"}">${THEME_TEXT[t]}</button>`,
          )}</fieldset>
        </form>`;
}

const GROUPS = [
  { group: "organization", label: "Organization" },
  { group: "you", label: "You" },
] as const;

function header(account: PageAccount | null | undefined, active: string | undefined, theme: Theme, here: string): Html {
  if (!account) {
    return html`<header class="topbar"><div class="topbar-inner"><a class="brand" href="/">Crew</a></div></header>`;
  }
  const owner = account.user.role === "owner";
  const entries = NAV.filter((item) => owner || !item.ownerOnly);
  const link = (item: NavEntry) =>
    html`<li><a href="${item.href}"${item.href === active ? html` aria-current="page"` : ""}>${item.label}</a></li>`;
  const settings = entries.filter((item) => item.group !== "work");
  const inSettings = settings.some((item) => item.href === active);
  const groups = GROUPS.map(({ group, label }) => ({ label, items: settings.filter((item) => item.group === group) })).filter(
    (g) => g.items.length > 0,
  );
  return html`<header class="topbar">
  <div class="topbar-inner">
    <a class="brand" href="/dashboard">Crew</a>
    <nav aria-label="Main" class="nav-main"><ul class="nav">${entries.filter((item) => item.group === "work").map(link)}</ul></nav>
    <details class="menu">
      <summary class="${inSettings ? "menu-current" : ""}">Settings</summary>
      <div class="menu-list">
        <p class="menu-who">Signed in as <strong>${account.user.email}</strong> <span class="badge badge-plan">${words(account.user.plan)}</span></p>
        <nav aria-label="Settings">${groups.map(
          (g, i) =>
            html`<p class="menu-group" id="menu-group-${i}">${g.label}</p><ul aria-labelledby="menu-group-${i}">${g.items.map(link)}</ul>`,
        )}</nav>
        ${themeForm(account, theme, here)}
      </div>
    </details>
    <div class="who">
      <span class="who-email" title="${account.user.email}">${account.user.email}</span>
      <span class="badge badge-plan">${words(account.user.plan)}</span>
      <form method="post" action="/sign-out">${csrfField(account)}<button type="submit" class="btn btn-quiet">Sign out</button></form>
    </div>
  </div>
</header>`;
}

/** The keys of src/web/assets/crew.js, listed by `?` (a <dialog>, so Escape closes it and focus returns). */
const KEYS: [string[], string][] = [
  [["j", "k"], "Next, previous item (actions, suggestions, feed)"],
  [["e"], "Mark the item done"],
  [["a"], "Approve (or make a suggestion an action)"],
  [["d"], "Dismiss (the notice offers Undo)"],
  [["s"], "Snooze for a day"],
  [["/"], "Search"],
  [["g d"], "Go to the dashboard"],
  [["g b"], "Go to the briefing"],
  [["g a"], "Go to the actions"],
  [["?"], "This list"],
  [["Esc"], "Close a menu or this list"],
];

function keyboardHelp(): Html {
  return html`<dialog id="kbd-help" aria-labelledby="kbd-help-h" class="kbd-help">
  <h2 id="kbd-help-h">Keyboard shortcuts</h2>
  <dl>${KEYS.map(([keys, what]) => html`<div><dt>${keys.map((k, i) => html`${i ? " / " : ""}<kbd>${k}</kbd>`)}</dt><dd>${what}</dd></div>`)}</dl>
  <form method="dialog"><button type="submit" class="btn btn-small">Close</button></form>
</dialog>
<p id="kbd-status" class="sr-only" aria-live="polite"></p>`;
}

/** The whole document. Export for every page of Crew, so they look and behave alike. */
export function layout(options: PageOptions): Html {
  return html`<!doctype html>
<html lang="en"${options.theme && options.theme !== "system" ? html` data-theme="${options.theme}"` : ""}${
    options.account?.user.timeZone ? html` data-time-zone="${options.account.user.timeZone}"` : ""
  }>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · Crew</title>
<link rel="icon" href="/static/crew.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/crew.css">
<script src="/static/crew.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header(options.account, options.active, options.theme ?? "system", options.here ?? "/dashboard")}
<main id="main" class="${options.narrow ? "container narrow" : "container"}">
${options.body}
</main>
${options.account ? keyboardHelp() : ""}
</body>
</html>`;
}

/**
 * Renders a page with the security headers. Built through the context, so headers set on it
 * before (the session cookie) are kept.
 */
export async function renderPage(
  c: Context<AppEnv>,
  options: PageOptions,
  status = 200,
  extra: Record<string, string> = {},
): Promise<Response> {
  const body = await layout({
    theme: themeOf(c),
    here: c.req.method === "GET" ? c.req.path + new URL(c.req.url).search : c.req.path,
    ...options,
  });
  return c.body(body, status as 200, { ...SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", ...extra });
}

/** 303 See Other (a form POST's answer is fetched with GET), keeping headers set on the context. */
export function seeOther(c: Context<AppEnv>, location: string): Response {
  return c.body(null, 303, { ...SECURITY_HEADERS, Location: location });
}

/** An error or notice in the page itself (role=alert so screen readers announce it). */
export function alertBox(kind: "error" | "success" | "info", message: Html | string | null | undefined): Html | string {
  if (!message) return "";
  return html`<div class="alert alert-${kind}" role="${kind === "error" ? "alert" : "status"}">${message}</div>`;
}

/** A short page that explains a refusal (expired form, used link) with a way on. */
export function messagePage(
  c: Context<AppEnv>,
  status: number,
  title: string,
  message: string,
  link: { href: string; label: string },
  account?: PageAccount | null,
): Promise<Response> {
  const body = html`<section class="card">
  <h1>${title}</h1>
  <p>${message}</p>
  <p><a class="btn" href="${link.href}">${link.label}</a></p>
</section>`;
  return renderPage(c, { title, body, account, narrow: true }, status);
}

/**
 * "just now", "5 min ago", "3 h ago", "2 days ago", "never"; the exact time is in the title, in UTC
 * as sent and in the person's time zone once crew.js has run (their own, else the browser's).
 */
export function ago(ms: number | string | null | undefined, now: number): Html | string {
  if (ms == null) return html`<span class="muted">never</span>`;
  const t = typeof ms === "string" ? Date.parse(ms) : ms;
  const seconds = Math.max(0, Math.round((now - t) / 1000));
  let text: string;
  if (seconds < 60) text = "just now";
  else if (seconds < 3600) text = `${Math.floor(seconds / 60)} min ago`;
  else if (seconds < 172_800) text = `${Math.floor(seconds / 3600)} h ago`;
  else text = `${Math.floor(seconds / 86_400)} days ago`;
  const exact = new Date(t).toISOString();
  return html`<time datetime="${exact}" title="${exact.replace("T", " ").slice(0, 16)} UTC">${text}</time>`;
}
