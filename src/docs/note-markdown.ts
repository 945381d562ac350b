/**
 * Crew's one Markdown renderer: the notes in src/docs/notes/ (guides and decisions, written next
 * to the code they govern) and the descriptions of the API reference, rendered to HTML: headings, paragraphs, `-`/`1.` lists, fenced code, tables,
 * inline `code`, **strong**, *emphasis* and [links](…). Everything is escaped first; links keep
 * only http(s), relative and fragment targets.
 */
const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

export const slugOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>|`/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** One line of Markdown (code spans, **strong**, *emphasis*, links) as HTML, escaped first. */
export function inlineText(text: string): string {
  const codes: string[] = [];
  // Code spans first, set aside so nothing inside them is formatted.
  const withoutCode = text.replace(/`([^`]+)`/g, (_, code: string) => {
    codes.push(`<code>${escapeHtml(code)}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  return escapeHtml(withoutCode)
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label: string, href: string) =>
      /^(https?:\/\/|\/|#)/.test(href) ? `<a href="${href}">${label}</a>` : whole,
    )
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\uE000(\d+)\uE000/g, (_, i: string) => codes[Number(i)] ?? "");
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));

export function renderNote(source: string): string {
  const lines = source.replace(/\r\n/g, "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  const isBlockStart = (line: string) => /^(#{1,6} |```|\s*[-*] |\s*\d+\. |\|)/.test(line) || line.trim() === "";
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").startsWith("```")) code.push(lines[i++] ?? "");
      i++;
      out.push(`<pre><code${fence[1] ? ` class="language-${fence[1]}"` : ""}>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6}) (.*)$/.exec(line);
    if (heading) {
      const level = heading[1]?.length ?? 2;
      const text = heading[2] ?? "";
      out.push(`<h${level} id="${slugOf(text)}">${inlineText(text)}</h${level}>`);
      i++;
      continue;
    }
    if (line.startsWith("|")) {
      const rows: string[] = [];
      while (i < lines.length && (lines[i] ?? "").startsWith("|")) rows.push(lines[i++] ?? "");
      const [head, divider, ...body] = rows;
      if (head && divider && /^\|?\s*:?-{3,}/.test(divider)) {
        out.push(
          `<table><thead><tr>${cells(head)
            .map((c) => `<th scope="col">${inlineText(c)}</th>`)
            .join("")}</tr></thead><tbody>${body
            .map(
              (r) =>
                `<tr>${cells(r)
                  .map((c) => `<td>${inlineText(c)}</td>`)
                  .join("")}</tr>`,
            )
            .join("")}</tbody></table>`,
        );
      } else out.push(`<p>${inlineText(rows.join(" "))}</p>`);
      continue;
    }
    const item = /^\s*([-*]|\d+\.) (.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1] ?? "");
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? "";
        const next = /^\s*([-*]|\d+\.) (.*)$/.exec(current);
        if (next) items.push(next[2] ?? "");
        else if (/^\s+\S/.test(current) && items.length > 0) items[items.length - 1] += ` ${current.trim()}`;
        else break;
        i++;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(`<${tag}>${items.map((t) => `<li>${inlineText(t)}</li>`).join("")}</${tag}>`);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && (paragraph.length === 0 || !isBlockStart(lines[i] ?? ""))) paragraph.push(lines[i++] ?? "");
    out.push(`<p>${inlineText(paragraph.join(" "))}</p>`);
  }
  return out.join("\n");
}
