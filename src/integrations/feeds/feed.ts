/**
 * Reading one feed (src/docs/notes/sources.md): fetched through the outbound policy (src/docs/notes/outbound-requests.md), parsed by feedsmith
 * (RSS, Atom, RDF, JSON Feed — no parser written here), its items reduced to what an agent reads:
 * id, title, link, date, plain text. Bounded: at most `maxItems` items, newest first, text cut at
 * `maxChars`, and the body at the policy's size limit.
 */
import { parseFeed } from "feedsmith";
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../outbound.ts";
import { htmlToText, tidy, truncate } from "./plain-text.ts";

export interface FeedEntry {
  id: string;
  title: string;
  url?: string;
  /** Epoch ms; NaN when the feed gave none that parses. */
  published: number;
  text: string;
}

export type FeedFailure = "unreachable" | "status" | "not_a_feed";

/** Why a feed could not be read. `message` is for the user; `reason` (addresses, ports) only for the log. */
export class FeedError extends Error {
  constructor(
    readonly kind: FeedFailure,
    message: string,
    readonly reason: string = message,
  ) {
    super(message);
  }
}

const ACCEPT =
  "application/feed+json, application/atom+xml, application/rss+xml, application/rdf+xml;q=0.9, application/xml;q=0.8, text/xml;q=0.8, application/json;q=0.7, */*;q=0.1";

/** Largest feed body read: generous for a feed, small against a hostile server. */
const MAX_FEED_BYTES = 2 * 1024 * 1024;

interface Draft {
  id?: string;
  title?: string;
  url?: string;
  date?: string;
  html?: string;
  text?: string;
}

const atomText = (t: { value?: string; type?: string } | undefined): Draft["html"] => t?.value;

type ParsedFeed = ReturnType<typeof parseFeed<string>>;

function drafts(body: ParsedFeed): Draft[] {
  switch (body.format) {
    case "rss":
      return (body.feed.items ?? []).map((i) => ({
        id: i.guid?.value ?? i.link,
        title: i.title,
        url: i.link,
        date: i.pubDate ?? i.dc?.dates?.[0],
        html: i.content?.encoded ?? i.description,
      }));
    case "atom":
      return (body.feed.entries ?? []).map((e) => ({
        id: e.id,
        title: atomText(e.title),
        url: (e.links ?? []).find((l) => !l.rel || l.rel === "alternate")?.href ?? e.links?.[0]?.href,
        date: e.published ?? e.updated,
        html: atomText(e.content) ?? atomText(e.summary),
      }));
    case "rdf":
      return (body.feed.items ?? []).map((i) => ({
        id: i.rdf?.about ?? i.link,
        title: i.title,
        url: i.link,
        date: i.dc?.dates?.[0],
        html: i.content?.encoded ?? i.description,
      }));
    case "json":
      return (body.feed.items ?? []).map((i) => ({
        id: i.id,
        title: i.title,
        url: i.url ?? i.external_url,
        date: i.date_published ?? i.date_modified,
        text: i.content_text,
        html: i.content_html ?? i.summary,
      }));
  }
}

/** Parses a feed body (XML or JSON Feed text). Throws FeedError "not_a_feed". */
export function parseFeedBody(text: string, limits: { maxItems: number; maxChars: number }): FeedEntry[] {
  let parsed: ParsedFeed;
  try {
    const trimmed = text.trimStart();
    parsed = parseFeed<string>(trimmed.startsWith("{") ? JSON.parse(trimmed) : trimmed);
  } catch (error) {
    throw new FeedError("not_a_feed", "The address does not serve an RSS, Atom or JSON feed.", String((error as Error)?.message ?? error));
  }
  const entries = drafts(parsed).map((d, index): FeedEntry => {
    const plain = d.text ? tidy(d.text) : d.html ? htmlToText(d.html) : "";
    const title = d.title ? htmlToText(d.title) : "";
    return {
      id: d.id || d.url || `${title}#${index}`,
      title: truncate(title || plain.split("\n")[0] || "(untitled)", 300),
      url: d.url,
      published: d.date ? Date.parse(d.date) : Number.NaN,
      text: truncate(plain, limits.maxChars),
    };
  });
  // Newest first; undated items keep the feed's own order (feeds list newest first by custom).
  const order = entries.map((e, i) => ({ e, i }));
  order.sort((a, b) => {
    const ad = Number.isNaN(a.e.published) ? null : a.e.published;
    const bd = Number.isNaN(b.e.published) ? null : b.e.published;
    if (ad !== null && bd !== null && ad !== bd) return bd - ad;
    return a.i - b.i;
  });
  return order.map((o) => o.e).slice(0, limits.maxItems);
}

/** Fetches and parses a feed. Throws FeedError; a refused and an unreachable address read the same to the user. */
export async function readFeed(policy: OutboundPolicy, url: string, limits: { maxItems: number; maxChars: number }): Promise<FeedEntry[]> {
  let response: Response;
  try {
    response = await outboundFetch(policy, url, { headers: { accept: ACCEPT }, maxBytes: MAX_FEED_BYTES });
  } catch (error) {
    if (error instanceof OutboundRefused || error instanceof OutboundFailed) {
      throw new FeedError("unreachable", "The feed could not be reached.", error.reason);
    }
    throw error;
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new FeedError("status", `The feed answered HTTP ${response.status}.`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (error instanceof OutboundFailed) throw new FeedError("unreachable", "The feed could not be read completely.", error.reason);
    throw error;
  }
  return parseFeedBody(text, limits);
}
