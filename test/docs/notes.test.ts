/**
 * The notes of /docs (src/docs/notes/*.md, which other parts of Crew add to): every file of the
 * folder is a page, listed on /docs; the README stays a front door that links into them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderNote } from "../../src/docs/note-markdown.ts";
import { ROOT } from "../helpers/cli.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const files = readdirSync(`${ROOT}src/docs/notes`).filter((f) => f.endsWith(".md"));
let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("/docs/notes", () => {
  it("renders every Markdown file of src/docs/notes as a page listed on /docs", async () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    const index = await (await fetch(`${s.url}/docs`)).text();
    const list = await (await fetch(`${s.url}/docs/notes`)).text();
    for (const file of files) {
      const slug = file.replace(/\.md$/, "");
      const title = /^# (.+)$/m.exec(readFileSync(`${ROOT}src/docs/notes/${file}`, "utf8"))?.[1] ?? slug;
      expect(index, file).toContain(`href="/docs/notes/${slug}"`);
      expect(list, file).toContain(`href="/docs/notes/${slug}"`);
      const res = await fetch(`${s.url}/docs/notes/${slug}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page, file).toContain(`<h1 id=`);
      expect(page, file).toContain(`<title>${title.replace(/&/g, "&amp;")} · Crew</title>`);
      // No Markdown left unrendered: fences and table dividers become HTML.
      expect(page, file).not.toMatch(/```|\| --- \|/);
    }
  });

  it("answers an unknown note with the 404 error envelope", async () => {
    const res = await fetch(`${s.url}/docs/notes/no-such-note`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe("not_found");
  });

  it("renders headings, lists, tables, fenced code and links, escaping everything else", () => {
    const html = renderNote(
      [
        "# Title",
        "",
        "A *soft* **strong** `co<de>` [docs](/docs) [bad](javascript:alert(1)) <script>x</script>",
        "",
        "- one",
        "- two",
        "",
        "1. first",
        "2. second",
        "",
        "| A | B |",
        "| --- | --- |",
        "| `a|b` | 2 |",
        "",
        "```sh",
        "echo <hi>",
        "```",
      ].join("\n"),
    );
    expect(html).toContain('<h1 id="title">Title</h1>');
    expect(html).toContain("<em>soft</em> <strong>strong</strong> <code>co&lt;de&gt;</code>");
    expect(html).toContain('<a href="/docs">docs</a>');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("<ul><li>one</li><li>two</li></ul>");
    expect(html).toContain("<ol><li>first</li><li>second</li></ol>");
    expect(html).toContain('<th scope="col">A</th>');
    expect(html).toContain('<pre><code class="language-sh">echo &lt;hi&gt;</code></pre>');
  });
});

describe("README", () => {
  it("is a front door of at most 15 KB whose /docs links all exist", () => {
    const readme = readFileSync(`${ROOT}README.md`, "utf8");
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15_000);
    const linked = [...readme.matchAll(/\/docs\/notes\/([a-z0-9-]+)/g)].map((m) => `${m[1]}.md`);
    expect(linked.length).toBeGreaterThan(3);
    expect(linked.filter((f) => !files.includes(f))).toEqual([]);
    for (const topic of [
      "npm ci --omit=dev",
      "build:binary",
      "systemd",
      "BASE_URL",
      "crew backup",
      "crew-secret",
      "Upgrades",
      "claude mcp add",
    ]) {
      expect(readme, topic).toContain(topic);
    }
  });
});

describe("issue 18 item 17: the README's stdio set-up", () => {
  it("gives the checkout's path (or the binary), never npx crew, which npm would resolve from its registry", () => {
    const readme = readFileSync(`${ROOT}README.md`, "utf8");
    expect(readme).toContain('"command": "node", "args": ["/path/to/crew/bin/crew.js", "mcp"]');
    expect(readme).toContain('"command": "/usr/local/bin/crew"');
    for (const [name, text] of [["README.md", readme], ...files.map((f) => [f, readFileSync(`${ROOT}src/docs/notes/${f}`, "utf8")])]) {
      // A stdio client config that starts `npx crew`, in JSON or as a `claude mcp add … -- npx crew mcp` line.
      expect(text, name).not.toMatch(/"command":\s*"npx",\s*"args":\s*\[\s*"crew"|--\s+npx\s+crew\s+mcp/);
    }
  });
});
