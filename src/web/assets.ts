/**
 * The two static files of the web UI, served by Crew itself (no CDN, no build step): one
 * stylesheet and one small script (the copy button). Kept as strings so `src/` needs no file
 * system and runs unchanged on Node, Deno and Bun.
 */
import { Hono } from "hono";
import type { AppEnv } from "../deps.ts";

const CSS = `
:root {
  --bg: #f5f6f8; --fg: #1b1f24; --muted: #5d6670; --card: #fff; --line: #dde1e6;
  --accent: #2f5bd3; --accent-fg: #fff; --accent-soft: #e8eefc;
  --green: #1c7c43; --green-bg: #e3f4ea; --amber: #8a5a00; --amber-bg: #fdf1d8;
  --red: #b3261e; --red-bg: #fbe6e4; --grey: #56606b; --grey-bg: #eceef1;
  --radius: 10px; --shadow: 0 1px 2px rgba(16,24,40,.06), 0 1px 3px rgba(16,24,40,.08);
  color-scheme: light;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); }
h1 { font-size: 1.6rem; margin: 0 0 1rem; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 0 0 .75rem; overflow-wrap: anywhere; }
p { margin: 0 0 .75rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .92em; }
.muted { color: var(--muted); }
.small { font-size: .85rem; }
.nowrap { white-space: nowrap; }
.lead { color: var(--muted); margin-bottom: 1.25rem; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0,0,0,0); white-space: nowrap; border: 0; }
.skip { position: absolute; left: -9999px; top: 0; background: var(--card); padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; top: .5rem; }
:focus-visible { outline: 3px solid #7aa2ff; outline-offset: 2px; }

.topbar { background: #151a23; color: #e8ebf0; }
.topbar-inner { max-width: 1160px; margin: 0 auto; padding: .6rem 1.25rem; display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
.brand { color: #fff; font-weight: 700; font-size: 1.15rem; text-decoration: none; letter-spacing: .01em; }
.nav { list-style: none; display: flex; gap: .25rem; margin: 0; padding: 0; flex-wrap: wrap; }
.nav a { color: #c6ccd6; text-decoration: none; padding: .35rem .55rem; border-radius: 6px; display: inline-block; }
.nav a:hover { color: #fff; background: rgba(255,255,255,.08); }
.nav a[aria-current="page"] { color: #fff; background: rgba(255,255,255,.14); }
.who { margin-left: auto; display: flex; align-items: center; gap: .6rem; min-width: 0; }
/* The email and plan are in the Settings menu; beside Sign out only where the bar has room. */
.who-email, .who .badge-plan { display: none; }
@media (min-width: 1400px) { .who-email, .who .badge-plan { display: inline-block; } }
.who-email { color: #c6ccd6; font-size: .9rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 11rem; }
.who form { margin: 0; }
.topbar .btn-quiet { color: #e8ebf0; border-color: rgba(255,255,255,.25); background: transparent; }
.topbar .btn-quiet:hover { background: rgba(255,255,255,.08); }

.container { max-width: 1160px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
.container.narrow { max-width: 440px; padding-top: 3rem; }
.section { margin-bottom: 1.5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 1.25rem; margin-bottom: 1.25rem; min-width: 0; }
.card-success { border-color: #9fd5b4; background: #f6fcf8; }
.grid-2 { display: grid; grid-template-columns: 1fr 1fr; gap: 1.25rem; }
.grid-2 > .card { margin-bottom: 0; }
.grid-keys { display: grid; grid-template-columns: minmax(260px, 1fr) 2fr; gap: 1.25rem; align-items: start; }
.grid-keys > .card { margin-bottom: 0; }

.stats { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; grid-template-columns: repeat(5, 1fr); gap: .75rem; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: .75rem 1rem; box-shadow: var(--shadow); border-top: 4px solid var(--grey); }
.stat-value { display: block; font-size: 1.6rem; font-weight: 700; line-height: 1.1; }
.stat-label { color: var(--muted); font-size: .85rem; }
.stat-total { border-top-color: var(--accent); }
.stat-green { border-top-color: var(--green); }
.stat-stale { border-top-color: #d39a1a; }
.stat-error { border-top-color: var(--red); }

.table-wrap { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); overflow-x: auto; }
.card .table-wrap { border: 0; box-shadow: none; border-radius: 0; }
.table { width: 100%; border-collapse: collapse; }
.table th, .table td { text-align: left; padding: .6rem .85rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.table thead th { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); background: #fafbfc; }
.table tbody tr:last-child > * { border-bottom: 0; }
.table tbody th { font-weight: 600; }
/* Names and ids are chosen by people and programs: a long one wraps instead of widening the table. */
.table.items tbody th, .table .mono { overflow-wrap: anywhere; }
.table.items tbody th { min-width: 9rem; }
.card .table th:first-child, .card .table td:first-child { padding-left: 0; }
.agent-name { white-space: nowrap; }
.summary { color: #343b44; min-width: 16rem; }

.badge { display: inline-block; font-size: .78rem; font-weight: 600; padding: .1rem .55rem; border-radius: 999px; white-space: nowrap; background: var(--grey-bg); color: var(--grey); }
.badge-green { background: var(--green-bg); color: var(--green); }
.badge-stale { background: var(--amber-bg); color: var(--amber); }
.badge-error { background: var(--red-bg); color: var(--red); }
.badge-never_ran { background: var(--grey-bg); color: var(--grey); }
.badge-plan { background: var(--accent-soft); color: var(--accent); }
.topbar .badge-plan { background: rgba(122,162,255,.2); color: #cfdcff; }

.alert { border-radius: 8px; padding: .7rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.alert-error { background: var(--red-bg); border-color: #f1b8b3; color: #7d1a14; }
.alert-success { background: var(--green-bg); border-color: #9fd5b4; color: #145c31; }
.alert-info { background: var(--accent-soft); border-color: #b9cbf5; }
.alert-list { list-style: none; margin: 0; padding: 0; }
.alert-item { padding: .6rem 0; border-bottom: 1px solid var(--line); }
.alert-item:last-child { border-bottom: 0; }
.alert-item p { margin: .3rem 0 0; }

.facts { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; margin: 0 0 1rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }

.stack > * + * { margin-top: 1rem; }
form.stack + p { margin-top: 1.25rem; }
.field label, .field legend { display: block; font-weight: 600; margin-bottom: .3rem; }
fieldset.field { border: 0; padding: 0; margin-left: 0; margin-right: 0; }
input[type=email], input[type=password], input[type=text], input:not([type]) { width: 100%; font: inherit; padding: .55rem .7rem; border: 1px solid #c3c9d1; border-radius: 8px; background: #fff; color: var(--fg); }
input[aria-invalid=true] { border-color: var(--red); }
.field-error { color: var(--red); font-size: .88rem; margin: .3rem 0 0; }
.check { display: flex; gap: .6rem; align-items: flex-start; padding: .4rem 0; }
.check input { margin-top: .25rem; width: 1.05rem; height: 1.05rem; flex: none; }
.check label { font-weight: 600; cursor: pointer; margin-right: .25rem; }
.check .small { display: block; }

.btn { display: inline-block; font: inherit; font-weight: 600; font-size: .92rem; padding: .5rem .95rem; border-radius: 8px; border: 1px solid #c3c9d1; background: #fff; color: var(--fg); text-decoration: none; cursor: pointer; line-height: 1.3; }
.btn:hover { background: #f2f4f7; }
.btn-primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); }
.btn-primary:hover { background: #2449b0; }
.btn-block { width: 100%; }
.btn-quiet { background: transparent; }
.btn-danger { background: var(--red); border-color: var(--red); color: #fff; }
.btn-danger:hover { background: #8f1e18; }
.btn-danger-quiet { color: var(--red); border-color: #efc1bd; background: #fff; }
.btn[hidden] { display: none; }

.copy-row { display: flex; gap: .5rem; margin-bottom: .75rem; }
.copy-row input { flex: 1; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #fff; }

.confirm summary { list-style: none; display: inline-block; }
.confirm summary::-webkit-details-marker { display: none; }
.confirm[open] summary { background: var(--red-bg); }
.confirm-box { margin-top: .5rem; padding: .75rem; border: 1px solid #efc1bd; border-radius: 8px; background: #fffafa; max-width: 22rem; overflow-wrap: anywhere; }
.confirm-box p { margin-bottom: .5rem; }


/* Navigation: the work pages in the bar (a strip that scrolls sideways on a phone), settings in a menu. */
.nav-main { min-width: 0; }
.menu { position: relative; }
.menu summary { list-style: none; cursor: pointer; color: #c6ccd6; padding: .35rem .65rem; border-radius: 6px; }
.menu summary::-webkit-details-marker { display: none; }
.menu summary::after { content: " ▾"; font-size: .8em; }
.menu summary:hover, .menu[open] summary, .menu summary.menu-current { color: #fff; background: rgba(255,255,255,.12); }
.menu-list ul { list-style: none; margin: 0; padding: 0; }
.menu-who { color: #c6ccd6; font-size: .85rem; padding: .3rem .65rem .5rem; margin: 0 0 .3rem; border-bottom: 1px solid rgba(255,255,255,.12); overflow-wrap: anywhere; }
.menu-who strong { color: #fff; font-weight: 600; }
.menu-list { margin: 0; padding: .35rem; position: absolute; z-index: 20; top: calc(100% + .3rem); right: 0; min-width: 14rem; max-width: min(20rem, calc(100vw - 1.5rem)); background: #1f2633; border-radius: 8px; box-shadow: 0 8px 24px rgba(0,0,0,.25); }
.menu-list a { display: block; color: #dfe4ec; text-decoration: none; padding: .4rem .65rem; border-radius: 6px; }
.menu-list a:hover, .menu-list a[aria-current="page"] { background: rgba(255,255,255,.12); color: #fff; }

.grid-side { display: grid; grid-template-columns: minmax(0, 2fr) minmax(280px, 1fr); gap: 1.25rem; align-items: start; }
.grid-side > .card { margin-bottom: 0; }
.grid-2.plain { gap: 1rem; }
h3 { font-size: .95rem; margin: 0 0 .5rem; }
.headline { font-size: 1.05rem; overflow-wrap: anywhere; }
.hint { color: var(--muted); font-size: .85rem; margin: .3rem 0 0; }
.empty { overflow-wrap: anywhere; border: 1px dashed #c3c9d1; border-radius: var(--radius); padding: 1rem 1.1rem; background: #fbfcfd; color: #343b44; }
.empty p:last-child { margin-bottom: 0; }
.plain-list { list-style: none; margin: 0; padding: 0; }
.plain-list > li { padding: .4rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.plain-list > li:last-child { border-bottom: 0; }
.plain-list.numbered { list-style: decimal; padding-left: 1.4rem; }
.prose p { max-width: 72ch; overflow-wrap: anywhere; }
textarea, select, input[type=search] { font: inherit; border: 1px solid #c3c9d1; border-radius: 8px; background: #fff; color: var(--fg); }
textarea, input[type=search] { width: 100%; padding: .55rem .7rem; }
textarea { resize: vertical; }
select { padding: .45rem .5rem; max-width: 100%; }
.field select { width: 100%; }
textarea[aria-invalid=true], select[aria-invalid=true] { border-color: var(--red); }

.filter-block { margin-bottom: .75rem; }
.filters { display: flex; align-items: baseline; gap: .5rem; flex-wrap: wrap; margin-bottom: .5rem; }
.filters-label { font-size: .78rem; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); min-width: 4.5rem; }
.filters ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem; }
.filters a { display: inline-block; padding: .2rem .6rem; border-radius: 999px; border: 1px solid var(--line); background: #fff; text-decoration: none; font-size: .88rem; }
.filters a[aria-current] { background: var(--accent); border-color: var(--accent); color: #fff; }
.pager { display: flex; gap: .5rem; margin-top: 1rem; }

.action-list { list-style: none; margin: 0; padding: 0; }
.action-item, .suggestion, .insight, .handoff { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--grey); border-radius: var(--radius); padding: .8rem 1rem; margin-bottom: .6rem; box-shadow: var(--shadow); overflow-wrap: anywhere; }
.action-critical { border-left-color: var(--red); }
.action-high, .insight-high { border-left-color: #d39a1a; }
.action-medium { border-left-color: var(--accent); }
.action-head { display: flex; gap: .5rem; align-items: baseline; }
.action-title { font-weight: 600; }
.action-desc { margin: .35rem 0; white-space: pre-line; color: #343b44; }
.action-meta { margin: .35rem 0 .5rem; }
.action-item.action-closed { background: var(--bg); box-shadow: none; }
.action-item.action-closed .action-title { text-decoration: line-through; color: var(--muted); }
.action-controls { display: flex; flex-wrap: wrap; gap: .35rem; align-items: flex-start; }
form.inline, .inline-form { display: inline-flex; gap: .35rem; align-items: center; flex-wrap: wrap; margin: 0; }
.btn-small { padding: .3rem .65rem; font-size: .85rem; }
.change summary { list-style: none; }
.change summary::-webkit-details-marker { display: none; }
.change-box { display: flex; flex-wrap: wrap; gap: .35rem .5rem; align-items: center; margin-top: .4rem; padding: .6rem; border: 1px solid var(--line); border-radius: 8px; background: #fafbfc; }
.change-box label { font-size: .85rem; font-weight: 600; }
.badge-p-critical { background: var(--red-bg); color: var(--red); }
.badge-p-high { background: var(--amber-bg); color: var(--amber); }
.badge-p-medium { background: var(--accent-soft); color: var(--accent); }
.badge-p-low { background: var(--grey-bg); color: var(--grey); }
.badge-status-done { background: var(--green-bg); color: var(--green); }
.badge-status-in_progress, .badge-status-approved { background: var(--accent-soft); color: var(--accent); }

.setups { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; margin-bottom: 1rem; }
.setup { min-width: 0; }
.code-row { display: flex; gap: .5rem; align-items: flex-start; }
.code-row pre { flex: 1; min-width: 0; margin: 0; background: #151a23; color: #e8ebf0; padding: .6rem .75rem; border-radius: 8px; overflow-x: auto; font-size: .85rem; }
.demo-form { display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; }
.table .num { text-align: right; white-space: nowrap; }
.table tfoot th, .table tfoot td { font-weight: 700; border-top: 2px solid var(--line); }
.narrow-form { max-width: 28rem; }
.stats.stats-3 { grid-template-columns: repeat(3, 1fr); }
.error-status { font-weight: 700; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; font-size: .8rem; margin-bottom: .25rem; }
.search { margin-bottom: 1rem; }
.search label { display: block; font-weight: 600; margin-bottom: .3rem; }
/* On one column the form comes after a long list: a link at the top jumps to it. */
.jump { display: none; margin-bottom: .75rem; }

@media (max-width: 900px) {
  .grid-2, .grid-keys, .grid-side, .setups { grid-template-columns: minmax(0, 1fr); }
  .jump { display: inline-block; }
  .stats { grid-template-columns: repeat(3, 1fr); }
}
@media (max-width: 640px) {
  .container { padding: 1rem .85rem 2rem; }
  .container.narrow { padding-top: 1.5rem; }
  .topbar-inner { gap: .5rem 1rem; padding: .6rem .85rem; }
  .nav a { padding: .3rem .5rem; }
  .nav-main { order: 3; width: 100%; overflow-x: auto; }
  .nav { flex-wrap: nowrap; }
  .nav a { white-space: nowrap; }
  .menu { margin-left: auto; }
  .who { margin-left: 0; }
  .code-row { flex-direction: column; align-items: stretch; }
  .filters { flex-direction: column; align-items: flex-start; gap: .2rem; }
  .stats.stats-3 { grid-template-columns: 1fr; }
  .facts.wide { grid-template-columns: 1fr; }
  .facts.wide dd { margin-bottom: .6rem; }
  .code-row .btn { align-self: flex-start; }
  .stats { grid-template-columns: repeat(2, 1fr); }
  .stat-total { grid-column: span 2; }
  .stat { padding: .5rem .8rem; }
  .stat-value { font-size: 1.3rem; display: inline; margin-right: .3rem; }
  /* Tables become one card per row; each cell names its column. */
  .table.stack, .table.stack tbody { display: block; }
  .table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0,0,0,0); }
  .table.stack tr { display: block; padding: .6rem .85rem; border-bottom: 1px solid var(--line); }
  .table.stack tbody tr:last-child { border-bottom: 0; }
  .table.stack th, .table.stack td { display: flex; align-items: baseline; flex-wrap: wrap; gap: 0 .4rem; padding: .2rem 0 0 6.5rem !important; border: 0; position: relative; overflow-wrap: anywhere; min-width: 0; }
  .table.stack th[data-label]::before, .table.stack td[data-label]::before { content: attr(data-label); position: absolute; left: 0; top: .3rem; font-size: .74rem; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); }
  .table.stack .optional { display: none; }
  .summary { min-width: 0; }
  .agent-name { white-space: normal; }
  .copy-row { flex-direction: column; }
}
`;

/** Enhancements only: copy buttons (hidden without JavaScript, where the field is selectable instead) and confirm dialogs. */
const JS = `"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // A form that undoes work (dismiss) asks first; without JavaScript it submits at once.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    });
  });
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    button.hidden = false;
    // An input's value, or a code block's text.
    var text = function () { return "value" in field ? field.value : field.textContent; };
    var select = function () {
      if (field.select) { field.select(); return; }
      var range = document.createRange(); range.selectNodeContents(field);
      var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
    };
    field.addEventListener("focus", select);
    button.addEventListener("click", function () {
      var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 2000); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text()).then(done, function () { select(); });
      } else {
        select();
        try { document.execCommand("copy"); done(); } catch (e) {}
      }
    });
  });
});
`;

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bd3"/><path d="M21.5 11.2a7 7 0 1 0 0 9.6" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round"/></svg>`;

export function assetRoutes(): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const headers = (type: string) => ({
    "Content-Type": type,
    "Cache-Control": "public, max-age=300",
    "X-Content-Type-Options": "nosniff",
  });
  router.get("/static/crew.css", (c) => c.body(CSS, 200, headers("text/css; charset=utf-8")));
  router.get("/static/crew.svg", (c) => c.body(ICON, 200, headers("image/svg+xml")));
  router.get("/favicon.ico", (c) => c.body(ICON, 200, headers("image/svg+xml")));
  router.get("/static/crew.js", (c) => c.body(JS, 200, headers("text/javascript; charset=utf-8")));
  return router;
}
