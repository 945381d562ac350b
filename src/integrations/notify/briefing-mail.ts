/**
 * The briefing mail (src/docs/notes/delivery.md), composed when it is sent from what is stored then: subject
 * `Your briefing — {date}`, a text part and an HTML part (inline styles only: no remote images, no
 * scripts, one narrow column that reads at phone width), the briefing text, up to 5 top open
 * actions each with one-click links, the top 3 suggestions, a link to `{base}/briefing`, and the
 * RFC 8058 one-click unsubscribe headers.
 */
import type { InStatement } from "@libsql/client";
import { listOpenActions } from "../../store/actions/actions.ts";
import { listOpenSuggestions } from "../../store/actions/suggestions.ts";
import type { Db } from "../../store/db.ts";
import type { ActionVerb } from "../../store/delivery/notify.ts";
import { latestBriefing } from "../../store/reports/reports.ts";
import { newMailLink } from "./links.ts";

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /** The mail's links, stored in the same step as the send is recorded. */
  statements: InStatement[];
}

const VERB_LABELS: Record<ActionVerb, string> = { approve: "Approve", done: "Mark done", dismiss: "Dismiss" };

/** Which one-click verbs an open action offers: approve only while it waits for approval. */
const verbsFor = (status: string): ActionVerb[] => (status === "pending" ? ["approve", "done", "dismiss"] : ["done", "dismiss"]);

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * A title as one line of a text part: line breaks and other control or separator characters
 * become spaces, so a title cannot add a line of its own (a fake "Approve: https://…" above the
 * real one-click links).
 */
export function oneLine(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim();
}

/** The List-Unsubscribe pair of RFC 8058 (and RFC 2369): a POST to the URL turns the briefing mail off. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
}

export async function composeBriefingMail(
  db: Db,
  baseUrl: string,
  user: { id: string; orgId: string; name: string },
  date: string,
  now: number,
): Promise<ComposedMail | null> {
  const briefing = await latestBriefing<{ briefing: string }>(db, user.id);
  if (!briefing) return null;
  const [actions, suggestions] = await Promise.all([listOpenActions(db, user.orgId, 5), listOpenSuggestions(db, user.orgId, undefined, 3)]);
  const statements: InStatement[] = [];
  const linked = actions.map((a) => ({
    action: a,
    links: verbsFor(a.status).map((verb) => {
      const link = newMailLink(baseUrl, { purpose: "action", userId: user.id, actionId: a.id, verb }, now);
      statements.push(link.statement);
      return { verb, url: link.url };
    }),
  }));
  const unsubscribe = newMailLink(baseUrl, { purpose: "unsubscribe", userId: user.id }, now);
  statements.push(unsubscribe.statement);
  const briefingUrl = `${baseUrl}/briefing`;
  const settingsUrl = `${baseUrl}/settings/notifications`;

  const text = [
    // Composed as one line (src/agents/compose-briefing.ts), from titles that may hold line breaks.
    oneLine(briefing.body.briefing),
    "",
    ...(linked.length
      ? [
          "Top actions:",
          ...linked.flatMap(({ action, links }) => [
            `- [${action.priority}] ${oneLine(action.title)}`,
            ...links.map((l) => `    ${VERB_LABELS[l.verb]}: ${l.url}`),
          ]),
          "",
        ]
      : ["No actions are waiting.", ""]),
    ...(suggestions.length ? ["Suggestions:", ...suggestions.map((s) => `- ${oneLine(s.title)}`), ""] : []),
    `Open your briefing: ${briefingUrl}`,
    "",
    "--",
    `You get this mail because the daily briefing by email is on. Turn it off: ${unsubscribe.url}`,
    `Or change it in ${settingsUrl}`,
  ].join("\n");

  const p = 'style="margin:0 0 12px;font-size:16px;line-height:1.5"';
  const button = (url: string, label: string) =>
    `<a href="${escapeHtml(url)}" style="display:inline-block;margin:4px 8px 0 0;padding:6px 12px;border:1px solid #1d4ed8;border-radius:4px;color:#1d4ed8;text-decoration:none;font-size:14px">${escapeHtml(label)}</a>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Your briefing — ${escapeHtml(date)}</title></head>
<body style="margin:0;padding:16px;background:#ffffff;color:#111827;font-family:Arial,Helvetica,sans-serif">
<div style="max-width:600px;margin:0 auto">
<h1 style="font-size:20px;margin:0 0 12px">Your briefing — ${escapeHtml(date)}</h1>
<p ${p}>${escapeHtml(briefing.body.briefing)}</p>
<h2 style="font-size:17px;margin:20px 0 8px">Top actions</h2>
${
  linked.length
    ? `<ul style="padding-left:20px;margin:0 0 12px">${linked
        .map(
          ({ action, links }) =>
            `<li style="margin:0 0 12px;font-size:16px;line-height:1.4"><strong>${escapeHtml(action.priority)}</strong> ${escapeHtml(action.title)}<br>${links
              .map((l) => button(l.url, VERB_LABELS[l.verb]))
              .join("")}</li>`,
        )
        .join("\n")}</ul>`
    : `<p ${p}>No actions are waiting.</p>`
}
${
  suggestions.length
    ? `<h2 style="font-size:17px;margin:20px 0 8px">Suggestions</h2><ul style="padding-left:20px;margin:0 0 12px">${suggestions
        .map((s) => `<li style="margin:0 0 6px;font-size:16px">${escapeHtml(s.title)}</li>`)
        .join("")}</ul>`
    : ""
}
<p ${p}><a href="${escapeHtml(briefingUrl)}" style="color:#1d4ed8">Open your briefing in Crew</a></p>
<p style="margin:24px 0 0;font-size:13px;color:#4b5563">You get this mail because the daily briefing by email is on. <a href="${escapeHtml(unsubscribe.url)}" style="color:#4b5563">Turn it off</a> or change it in <a href="${escapeHtml(settingsUrl)}" style="color:#4b5563">your notification settings</a>.</p>
</div></body></html>`;

  return { subject: `Your briefing — ${date}`, text, html, headers: unsubscribeHeaders(unsubscribe.url), statements };
}
