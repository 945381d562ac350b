/**
 * The Markdown subset our own descriptions use (paragraphs, `- ` lists, ### headings, `code`),
 * rendered to HTML. Everything is escaped first: descriptions are ours, but never trusted as HTML.
 */
const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** Inline: escape, then `code` spans and **strong**. */
export function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]*)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

export function markdown(text: string, headingLevel = 3): string {
  return text
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split("\n");
      if (lines.every((l) => l.startsWith("- "))) {
        return `<ul>${lines.map((l) => `<li>${inline(l.slice(2))}</li>`).join("")}</ul>`;
      }
      const heading = /^#{1,6} (.*)$/.exec(block);
      if (heading) {
        const title = heading[1] ?? "";
        const id = title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, "");
        return `<h${headingLevel} id="${id}">${inline(title)}</h${headingLevel}>`;
      }
      // A paragraph followed by a list in the same block.
      const firstItem = lines.findIndex((l) => l.startsWith("- "));
      if (firstItem > 0 && lines.slice(firstItem).every((l) => l.startsWith("- "))) {
        const para = lines.slice(0, firstItem).join(" ");
        const items = lines.slice(firstItem).map((l) => `<li>${inline(l.slice(2))}</li>`);
        return `<p>${inline(para)}</p><ul>${items.join("")}</ul>`;
      }
      return `<p>${inline(lines.join(" "))}</p>`;
    })
    .join("\n");
}
