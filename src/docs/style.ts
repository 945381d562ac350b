/** The reference's one stylesheet, served at /docs/assets/docs.css: system fonts, no external requests. */
export const DOCS_CSS = `
:root {
  --fg: #1b1f24; --muted: #57606a; --line: #d8dee4; --bg: #ffffff; --panel: #f6f8fa; --accent: #0b5cad;
  --get: #116329; --post: #0550ae; --patch: #8250df; --put: #8250df; --delete: #b42318;
  --badge-fg: #fff;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --bg: #0d1117; --panel: #161b22; --accent: #58a6ff;
    --get: #3fb950; --post: #58a6ff; --patch: #bc8cff; --put: #bc8cff; --delete: #f85149; --badge-fg: #0d1117; }
}
* { box-sizing: border-box; }
html { scroll-padding-top: 1rem; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
code, pre { font-family: var(--mono); font-size: 0.88em; }
:not(pre) > code { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 0 0.25em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; overflow-x: auto; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: 0.5rem; z-index: 2; }
.layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr); min-height: 100vh; }
nav.side { position: sticky; top: 0; align-self: start; height: 100vh; overflow-y: auto; padding: 1.25rem 1rem 2rem;
  border-right: 1px solid var(--line); background: var(--panel); font-size: 0.9rem; }
nav.side .brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; display: block; margin-bottom: 0.25rem; }
nav.side .version { color: var(--muted); font-size: 0.8rem; margin: 0 0 1rem; }
nav.side h2 { font-size: 0.72rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 1.1rem 0 0.3rem; }
nav.side ul { list-style: none; margin: 0; padding: 0; }
nav.side li a { display: flex; gap: 0.5rem; align-items: baseline; padding: 0.15rem 0.3rem; border-radius: 4px; color: var(--fg); text-decoration: none; }
nav.side li a:hover { background: var(--line); }
nav.side .m { font: 700 0.66rem var(--mono); min-width: 2.8rem; }
main { padding: 2rem 2.5rem 4rem; max-width: 62rem; }
h1 { font-size: 2rem; margin: 0 0 0.25rem; }
h2.group { font-size: 1.45rem; margin: 3rem 0 0.5rem; padding-bottom: 0.3rem; border-bottom: 2px solid var(--line); }
.lead { color: var(--muted); margin-top: 0; }
.links { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; margin: 0.75rem 0 1.5rem; padding: 0; list-style: none; }
article.op { margin: 1.5rem 0 2.5rem; padding: 1.25rem 1.5rem; border: 1px solid var(--line); border-radius: 8px; }
article.op h3 { margin: 0; font-size: 1.15rem; display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: baseline; }
article.op h3 code { background: none; border: 0; font-size: 1rem; min-width: 0; overflow-wrap: anywhere; }
article.op h4 { margin: 1.25rem 0 0.4rem; font-size: 0.95rem; }
.summary { margin: 0.35rem 0 0.75rem; font-weight: 600; }
.badge { display: inline-block; font: 700 0.72rem var(--mono); color: var(--badge-fg); border-radius: 4px; padding: 0.15rem 0.45rem; }
.m-get { color: var(--get); } .m-post { color: var(--post); } .m-patch, .m-put { color: var(--patch); } .m-delete { color: var(--delete); }
.badge.m-get { background: var(--get); color: var(--badge-fg); } .badge.m-post { background: var(--post); color: var(--badge-fg); }
.badge.m-patch, .badge.m-put { background: var(--patch); color: var(--badge-fg); } .badge.m-delete { background: var(--delete); color: var(--badge-fg); }
.access { background: var(--panel); border-left: 3px solid var(--accent); padding: 0.5rem 0.9rem; margin: 0.75rem 0; font-size: 0.93rem; }
.access p { margin: 0.2rem 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin: 0.25rem 0 0.75rem; }
th, td { text-align: left; vertical-align: top; padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); }
th { font-size: 0.78rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
td.name { font-family: var(--mono); font-size: 0.85rem; white-space: nowrap; }
td.type { font-family: var(--mono); font-size: 0.82rem; color: var(--muted); white-space: nowrap; }
.req, .opt { font: 700 0.68rem system-ui, sans-serif; margin-left: 0.4rem; }
.req { color: var(--delete); } .opt { color: var(--muted); }
p.form { margin: 0.75rem 0 0.25rem; font-size: 0.9rem; color: var(--muted); }
.errors { display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0; list-style: none; margin: 0.25rem 0; }
.errors li { border: 1px solid var(--line); border-radius: 4px; padding: 0.1rem 0.45rem; font-size: 0.85rem; }
details summary { cursor: pointer; color: var(--muted); font-size: 0.9rem; }
.error-code { border-top: 1px solid var(--line); padding: 1rem 0; }
.error-code h2 { font-size: 1.2rem; margin: 0 0 0.4rem; display: flex; flex-wrap: wrap; gap: 0.2rem 0.6rem; align-items: baseline; }
.error-code :target, .error-code:target { background: var(--panel); }
.status { font: 700 0.85rem var(--mono); color: var(--muted); }
@media (max-width: 52rem) {
  .layout { grid-template-columns: minmax(0, 1fr); }
  /* The full list of operations is several screens long: a box of its own, so the page starts at once. */
  nav.side { position: static; height: auto; max-height: 45vh; border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: 1.25rem; }
  table thead { display: none; }
  table tr { display: grid; grid-template-columns: 1fr auto; border-bottom: 1px solid var(--line); padding: 0.35rem 0; }
  table td { border: 0; padding: 0.1rem 0.25rem; }
  td.name { white-space: normal; overflow-wrap: anywhere; }
  td.type { text-align: right; }
  table td:nth-child(3) { grid-column: 1 / -1; }
  table.tools td:nth-child(2) { grid-column: 1 / -1; }
}
`;
