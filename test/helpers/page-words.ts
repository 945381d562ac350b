/**
 * Two checks of a page as a person reads it (src/docs/notes/web-app.md#plain-words-and-dark-mode), run inside Chromium:
 * the words (no raw id, underscored enum value or variable name outside <code>) and the contrast
 * of every piece of visible text against what is behind it.
 */

export interface WordFinding {
  word: string;
  context: string;
}

/** Runs inside the page: every text node outside code, pre, kbd, script and style, hidden ones included (a closed <details> opens). */
export function rawWordsInPage(): WordFinding[] {
  const patterns = [
    /\b[a-z]{2,5}_[0-9A-Za-z]{6,}\b/g, // a record id: src_01J…, whk_…, act_…
    /\b[a-z]+(?:_[a-z]+)+\b/g, // an underscored enum value or name: follow_up, in_progress
    /\b[a-z]{2,}(?:[A-Z][a-z0-9]+)+\b/g, // a variable name: snoozedUntil, nextCursor (not iCloud)
  ];
  // A textarea holds a value being edited (an agent's instructions to its model), not the page's words.
  const skip = new Set(["CODE", "PRE", "KBD", "SCRIPT", "STYLE", "TEMPLATE", "SAMP", "TEXTAREA"]);
  const found: WordFinding[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let skipped = false;
    for (let el = node.parentElement; el; el = el.parentElement) {
      if (skip.has(el.tagName)) {
        skipped = true;
        break;
      }
    }
    if (skipped) continue;
    const text = node.textContent ?? "";
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const at = match.index ?? 0;
        // Inside an email address, a web address or a path: the person's own text, not a name of Crew's.
        const start = text.lastIndexOf(" ", at) + 1;
        const end = text.indexOf(" ", at) === -1 ? text.length : text.indexOf(" ", at);
        if (/@|\/|\.\w/.test(text.slice(start, end).replace(/\.$/, ""))) continue;
        found.push({ word: match[0], context: text.slice(Math.max(0, at - 40), at + match[0].length + 40).trim() });
      }
    }
  }
  return found;
}

export interface ContrastFinding {
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/** Runs inside the page: each visible element with text of its own, its colour against the first opaque background behind it. */
export function contrastInPage(): { background: string; low: ContrastFinding[] } {
  const parse = (value: string): [number, number, number, number] => {
    const m = value.match(/rgba?\(([^)]+)\)/);
    if (!m?.[1]) return [0, 0, 0, 0];
    const parts = m[1]
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts[3] ?? 1];
  };
  const over = (top: [number, number, number, number], under: [number, number, number]): [number, number, number] => {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a)];
  };
  const luminance = ([r, g, b]: [number, number, number]) => {
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  /** The colour behind an element: its backgrounds and its ancestors', composed down to the page's canvas. */
  const behind = (el: Element | null): [number, number, number] => {
    const layers: [number, number, number, number][] = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) layers.push(bg);
      if (bg[3] >= 1) break;
    }
    let colour: [number, number, number] = [255, 255, 255];
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const low: ContrastFinding[] = [];
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim());
    if (!own) continue;
    const html = el as HTMLElement;
    const rect = html.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2 || !html.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    const style = getComputedStyle(html);
    const back = behind(html);
    const fg = over(parse(style.color), back);
    const [hi, lo] = [luminance(fg), luminance(back)].sort((a, b) => b - a) as [number, number];
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5)
      low.push({
        text: (html.textContent ?? "").trim().slice(0, 40),
        ratio: Math.round(ratio * 100) / 100,
        color: style.color,
        background: `rgb(${back.map(Math.round).join(", ")})`,
      });
  }
  return { background: getComputedStyle(document.body).backgroundColor, low };
}
