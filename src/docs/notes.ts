/**
 * The notes of /docs: every Markdown file of src/docs/notes/ (guides and decisions kept next to
 * the code they govern; the README links here instead of repeating them) as a page at
 * /docs/notes/<file name>, listed on /docs. The files are read by the entry (boot.ts, or embedded
 * in the single executable) and handed in as text: this module does no file access.
 */
import { html, raw } from "hono/html";
import { renderNote } from "./note-markdown.ts";
import { page } from "./pages.ts";

export interface NoteFile {
  /** The file name, `operating.md`. */
  file: string;
  text: string;
}

export interface Note {
  slug: string;
  title: string;
  text: string;
}

/** Notes ordered by title; the title is the first `# ` heading, else the file name. */
export function notesOf(files: NoteFile[]): Note[] {
  return files
    .filter((f) => /^[a-z0-9][a-z0-9-]*\.md$/.test(f.file))
    .map((f) => {
      const slug = f.file.slice(0, -".md".length);
      const title = /^# (.+)$/m.exec(f.text)?.[1]?.trim() ?? slug;
      return { slug, title, text: f.text };
    })
    .sort((a, b) => a.title.localeCompare(b.title));
}

function notesNav(notes: Note[], current?: string) {
  return html`<a class="brand" href="/docs">Crew API</a>
<p class="version">Guides and decisions</p>
<h2>Guides</h2>
<ul>${notes.map((n) => html`<li><a href="/docs/notes/${n.slug}"${n.slug === current ? raw(' aria-current="page"') : ""}>${n.title}</a></li>`)}</ul>
<h2>Reference</h2>
<ul><li><a href="/docs">API reference</a></li><li><a href="/docs/errors">Error codes</a></li></ul>`;
}

export function notePage(note: Note, notes: Note[]) {
  return page(`${note.title} · Crew`, notesNav(notes, note.slug), raw(renderNote(note.text)));
}

/** The list on /docs (and at /docs/notes). */
export function notesIndex(notes: Note[]) {
  return html`<ul class="notes">${notes.map((n) => html`<li><a href="/docs/notes/${n.slug}">${n.title}</a></li>`)}</ul>`;
}

export function notesIndexPage(notes: Note[]) {
  return page("Guides · Crew", notesNav(notes), html`<h1>Guides and decisions</h1>${notesIndex(notes)}`);
}
