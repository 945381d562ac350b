/**
 * What the model-backed agents read from outside Crew (src/docs/notes/sources.md Sources): the organization's IMAP
 * mailbox for `inbox`, and feeds for the agents each feed names (research, corpdev, content,
 * compliance). `readSourcesFor` gives a run its new items (bounded), raises or clears the `imap` /
 * `feeds` integration alert, and `markSeen` (after the run completed) remembers what was read, so
 * the next run gets only what is new. Every address goes through the outbound policy (src/docs/notes/outbound-requests.md).
 * Item text is untrusted data: the runner passes it to the model only inside delimited fields.
 */
import * as v from "valibot";
import type { Config } from "../config.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import type { OutboundPolicy } from "../lib/outbound-policy.ts";
import { newId } from "../lib/random.ts";
import type { Db } from "../store/db.ts";
import { openOrgAlert, raiseOrgAlert, resolveOrgAlertStatement } from "../store/integrations/alerts.ts";
import {
  feedsOfAgent,
  getSource,
  listSources,
  mailboxOf,
  recordSourceOutcome,
  type StoredSource,
  saveSourceState,
} from "../store/integrations/sources.ts";
import { readCalendarEvents } from "./calendar-source.ts";
import { mailConnectionsOf, readConnectedMail } from "./connections/mail-source.ts";
import { FeedError, readFeed } from "./feeds/feed.ts";
import { truncate } from "./feeds/plain-text.ts";
import { type MailboxSettings, type MailCursor, MailError, readMailbox } from "./mail/imap.ts";
import { open, SecretBoxError } from "./secret-box.ts";
import { readSlack, SlackReadError, slackMissing } from "./slack/reader.ts";

export interface SourceItem {
  kind: "mail" | "feed" | "slack_message" | "calendar_event";
  /** Stable: the message UID, the feed item's id (guid). */
  id: string;
  /** Subject, item title. */
  title: string;
  /** Mail only: the correspondent (the runner upserts it as a contact); an event's organizer; a chat message's author. */
  from?: { name?: string; email?: string };
  /** Mail only: the To and Cc addresses, lower-case. */
  recipients?: string[];
  /** Mail only: sent in bulk or by a machine (src/docs/notes/prompt-injection.md#caps): never a contact. */
  bulk?: boolean;
  /** Mail of a connected account (src/docs/notes/connections.md): the recipients, and the headers bulk mail is told by (lower-case names). */
  to?: { name?: string; email?: string }[];
  cc?: { name?: string; email?: string }[];
  headers?: Record<string, string>;
  /** ISO 8601. */
  date: string;
  /** Plain text, already truncated to the caller's limit. */
  text: string;
  /** Feed item link; for mail of a connected account, the message in Gmail or Outlook. */
  url?: string;
  /** Mail only: the Message-ID header (without angle brackets), when the message has one. */
  messageId?: string;
  /** Mailbox folder or feed URL (never credentials); for an event, whose calendar. */
  source: string;
  /** Calendar events only (id is the event's UID, date its start, text its description). */
  event?: { start: string; end: string; allDay: boolean; free: boolean; location: string | null; attendees: string[] };
}

export interface SourceRead {
  items: SourceItem[];
  /** Null when the agent has what it needs; else what is missing, e.g. "Needs a mailbox: add one in Settings → Sources". */
  missing: string | null;
  /** Call after the run completed successfully: remembers the last IMAP UID / feed items seen. */
  markSeen(): Promise<void>;
}

export interface SourceDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  /** The outbound request policy (src/docs/notes/outbound-requests.md); boot builds it with the runtime's DNS. */
  policy: OutboundPolicy;
  /** CREW_SECRET, to open sealed passwords; defaults to `config.secret`. */
  secret?: string;
}

/** A source could not be read at all (mailbox failed, or every feed of the agent): the alert is already raised. */
export class SourceError extends Error {
  constructor(
    readonly service: "imap" | "feeds" | "slack" | "calendar" | "connections",
    message: string,
  ) {
    super(message);
  }
}

/** Agents that read feeds (src/docs/notes/sources.md table); `inbox` reads the mailbox. */
export const FEED_AGENTS = ["research", "corpdev", "content", "compliance"] as const;
export const MAILBOX_AGENT = "inbox";
/** The Slack agent reads the organization's Slack channels (src/docs/notes/delivery.md). */
export const SLACK_AGENT = "slack";
/** The calendar agent reads the calendars the organization's users connected (src/docs/notes/calendar.md). */
export const CALENDAR_AGENT = "calendar";

/** The Slack reader's messages as source items: id = `channel/ts`, url = permalink, source = channel. */
async function readSlackItems(deps: SourceDeps, orgId: string, limits: { maxItems: number; maxChars: number }): Promise<SourceRead> {
  try {
    const read = await readSlack(deps, orgId, limits);
    const items = read.items.map(
      (m): SourceItem => ({
        kind: "slack_message",
        id: m.ref,
        title: "",
        ...(m.user ? { from: { name: m.user } } : {}),
        date: m.date,
        text: m.text,
        ...(m.permalink ? { url: m.permalink } : {}),
        source: m.channel,
      }),
    );
    return { items, missing: read.missing, markSeen: read.markSeen };
  } catch (error) {
    if (error instanceof SlackReadError) throw new SourceError("slack", error.message);
    throw error;
  }
}

export const NEEDS_MAILBOX = "Needs a mailbox: add one in Settings → Sources";
export const NEEDS_FEED = "Needs a feed: add one in Settings → Sources";
const FIX_IT = "Correct it in Settings → Sources.";

export const StoredMailbox = v.object({
  host: v.string(),
  port: v.number(),
  tls: v.boolean(),
  username: v.string(),
  /** Sealed with purposeOf(orgId). */
  password: v.string(),
  folder: v.string(),
});
export const StoredFeed = v.object({ url: v.string() });

const MailState = v.object({ uidValidity: v.optional(v.string()), lastUid: v.optional(v.number()) });
/** Per feed: the item ids each agent has seen (agents reading one feed each get every item), and the last read's problem. */
const FeedState = v.object({
  seen: v.optional(v.record(v.string(), v.array(v.string())), {}),
  problem: v.optional(v.string()),
});
type FeedState = v.InferOutput<typeof FeedState>;

/** Binds a sealed mailbox password to its organization: copied into another organization's row, it does not open. */
export const mailboxPurpose = (orgId: string) => `imap:${orgId}`;

/** Feed item ids remembered per feed: enough for any feed's window of recent items. */
const SEEN_KEPT = 500;
/** Items parsed per feed before the seen ones are dropped and the caller's limit applies. */
const FEED_WINDOW = 200;

export function jsonOr<T extends v.GenericSchema, F>(schema: T, text: string, fallback: F): v.InferOutput<T> | F {
  try {
    const parsed = v.safeParse(schema, JSON.parse(text));
    return parsed.success ? parsed.output : fallback;
  } catch {
    return fallback;
  }
}

const isFeedAgent = (agentId: string) => (FEED_AGENTS as readonly string[]).includes(agentId);

/** Whether the agent's sources are configured (for "needs a source" summaries), without network access. */
export async function sourceMissing(deps: Pick<SourceDeps, "db">, orgId: string, agentId: string): Promise<string | null> {
  if (agentId === SLACK_AGENT) return slackMissing(deps.db, orgId);
  if (agentId === MAILBOX_AGENT) {
    if (await mailboxOf(deps.db, orgId)) return null;
    return (await mailConnectionsOf(deps.db, orgId)).length > 0 ? null : NEEDS_MAILBOX;
  }
  if (isFeedAgent(agentId)) return (await feedsOfAgent(deps.db, orgId, agentId)).length > 0 ? null : NEEDS_FEED;
  return null;
}

const nothing = (missing: string | null): SourceRead => ({ items: [], missing, markSeen: async () => {} });

/** Reads the sources of one agent (inbox → IMAP; research/corpdev/content/compliance → the feeds assigned to it). */
export async function readSourcesFor(
  deps: SourceDeps,
  orgId: string,
  agentId: string,
  limits: { maxItems: number; maxChars: number },
): Promise<SourceRead> {
  if (agentId === SLACK_AGENT) return readSlackItems(deps, orgId, limits);
  if (agentId === CALENDAR_AGENT) {
    const read = await readCalendarEvents({ ...deps, outbound: deps.policy }, orgId, limits);
    if (read.problem) throw new SourceError("calendar", read.problem);
    const items = read.events.map((e): SourceItem => {
      const start = new Date(e.start).toISOString();
      const end = new Date(e.end).toISOString();
      const { allDay, free, location } = e;
      const event = { start, end, allDay, free, location, attendees: e.attendees.slice(0, 20) };
      return {
        kind: "calendar_event",
        id: e.uid,
        title: e.title,
        ...(e.organizer ? { from: { email: e.organizer } } : {}),
        date: start,
        text: truncate(e.description ?? "", limits.maxChars),
        source: e.calendar,
        event,
      };
    });
    return { items, missing: null, markSeen: async () => {} }; // a window, not "what is new": nothing to remember
  }
  if (agentId === MAILBOX_AGENT) return readAllMail(deps, orgId, limits);
  if (isFeedAgent(agentId)) {
    const feeds = await feedsOfAgent(deps.db, orgId, agentId);
    return feeds.length > 0 ? readFeeds(deps, orgId, agentId, feeds, limits) : nothing(NEEDS_FEED);
  }
  return nothing(null);
}

/** The IMAP mailbox and the connected mailboxes together: a run fails only when none of them could be read. */
async function readAllMail(deps: SourceDeps, orgId: string, limits: { maxItems: number; maxChars: number }): Promise<SourceRead> {
  const mailbox = await mailboxOf(deps.db, orgId);
  const connected = await readConnectedMail({ ...deps, outbound: deps.policy }, orgId, limits);
  if (!mailbox && connected.mailboxes === 0) return nothing(NEEDS_MAILBOX);
  let imap: SourceRead | null = null;
  if (mailbox) {
    try {
      imap = await readInbox(deps, mailbox, limits);
    } catch (error) {
      // Alone, the mailbox's failure is the run's; beside connected mailboxes that work, it is one problem among them.
      if (!(error instanceof SourceError) || connected.mailboxes === connected.problems.length) throw error;
    }
  }
  if (!imap && connected.mailboxes > 0 && connected.problems.length === connected.mailboxes) {
    throw new SourceError("connections", connected.problems.join(" "));
  }
  const items = connected.messages.map(
    (m): SourceItem => ({
      kind: "mail",
      id: m.id,
      ...(m.messageId ? { messageId: m.messageId } : {}),
      title: m.subject,
      ...(m.from ? { from: m.from } : {}),
      to: m.to,
      cc: m.cc,
      headers: m.headers,
      date: new Date(m.date).toISOString(),
      text: m.text,
      url: m.url,
      source: m.mailbox,
    }),
  );
  const all = [...(imap?.items ?? []), ...items].sort((a, b) => Date.parse(b.date) - Date.parse(a.date)).slice(0, limits.maxItems);
  return {
    items: all,
    missing: null,
    markSeen: async () => {
      await imap?.markSeen();
      await connected.markSeen();
    },
  };
}

async function mailFailure(deps: SourceDeps, row: StoredSource, message: string, reason: string): Promise<never> {
  const orgId = row.orgId;
  // The reason (addresses, server texts) goes to the log only; never a password (imapflow's errors do not carry it).
  deps.log.warn("mailbox read failed", { org_id: orgId, reason });
  const now = deps.clock.now();
  await recordSourceOutcome(deps.db, orgId, row.id, message, now);
  await raiseOrgAlert(deps.db, { id: newId("alr", now), orgId, service: "imap", message: `Mailbox: ${message} ${FIX_IT}` }, now);
  throw new SourceError("imap", `Mailbox: ${message}`);
}

/** The stored mailbox with its password opened, or why it cannot be (a message for people, a reason for the log). */
export async function openMailbox(
  deps: Pick<SourceDeps, "config" | "secret">,
  row: StoredSource,
): Promise<MailboxSettings | { message: string; reason: string }> {
  const stored = jsonOr(StoredMailbox, row.config, null);
  if (!stored) return { message: "The saved mailbox settings cannot be read.", reason: "config does not parse" };
  try {
    return { ...stored, password: await open(deps.secret ?? deps.config.secret ?? "", stored.password, mailboxPurpose(row.orgId)) };
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    return { message: "The saved mailbox password cannot be decrypted (was CREW_SECRET changed?).", reason: "secret box" };
  }
}

async function readInbox(deps: SourceDeps, row: StoredSource, limits: { maxItems: number; maxChars: number }): Promise<SourceRead> {
  const settings = await openMailbox(deps, row);
  if ("reason" in settings) return mailFailure(deps, row, settings.message, settings.reason);
  const stored = settings;
  const cursor: MailCursor = jsonOr(MailState, row.state, {});
  let result: Awaited<ReturnType<typeof readMailbox>>;
  try {
    result = await readMailbox(deps.policy, settings, cursor, limits);
  } catch (error) {
    if (!(error instanceof MailError)) throw error;
    return mailFailure(deps, row, error.message, error.reason);
  }
  await recordSourceOutcome(deps.db, row.orgId, row.id, null, deps.clock.now());
  await resolveIfOpen(deps, row.orgId, "imap");
  const items = result.messages
    .sort((a, b) => b.uid - a.uid)
    .map(
      (m): SourceItem => ({
        kind: "mail",
        id: String(m.uid),
        ...(m.messageId ? { messageId: m.messageId } : {}),
        title: m.subject,
        ...(m.from ? { from: m.from } : {}),
        ...(m.recipients ? { recipients: m.recipients } : {}),
        ...(m.bulk !== undefined ? { bulk: m.bulk } : {}),
        date: new Date(m.date).toISOString(),
        text: m.text,
        source: stored.folder,
      }),
    );
  return {
    items,
    missing: null,
    markSeen: () => saveSourceState(deps.db, row.orgId, row.id, JSON.stringify(result.cursor), deps.clock.now()),
  };
}

/** Resolves the organization's open alert of the service; a read first, so the usual case costs no write. */
async function resolveIfOpen(deps: SourceDeps, orgId: string, service: string): Promise<void> {
  if (await openOrgAlert(deps.db, orgId, service)) await deps.db.execute(resolveOrgAlertStatement(orgId, service, deps.clock.now()));
}

async function readFeeds(
  deps: SourceDeps,
  orgId: string,
  agentId: string,
  feeds: StoredSource[],
  limits: { maxItems: number; maxChars: number },
): Promise<SourceRead> {
  const read = await Promise.all(
    feeds.map(async (row) => {
      const url = jsonOr(StoredFeed, row.config, { url: "" }).url;
      const state: FeedState = jsonOr(FeedState, row.state, { seen: {} });
      try {
        const entries = await readFeed(deps.policy, url, { maxItems: FEED_WINDOW, maxChars: limits.maxChars });
        const seen = new Set(state.seen[agentId] ?? []);
        return { row, url, state, fresh: entries.filter((e) => !seen.has(e.id)), problem: null };
      } catch (error) {
        if (!(error instanceof FeedError)) throw error;
        deps.log.warn("feed read failed", { org_id: orgId, source_id: row.id, reason: error.reason });
        return { row, url, state, fresh: [], problem: error.message };
      }
    }),
  );
  // Each feed's own state holds its latest problem; the one `feeds` alert of the organization names every failing feed.
  for (const r of read) {
    await recordSourceOutcome(deps.db, orgId, r.row.id, r.problem, deps.clock.now());
    if ((r.state.problem ?? null) !== r.problem) {
      const problem = r.problem;
      await updateFeedState(deps, orgId, r.row.id, (state) => ({ seen: state.seen, ...(problem ? { problem } : {}) }));
    }
  }
  await refreshFeedsAlert(deps, orgId);
  if (read.every((r) => r.problem)) {
    throw new SourceError("feeds", `Feeds: ${read.map((r) => `${r.url}: ${r.problem}`).join(" ")}`);
  }
  const items = read
    .flatMap((r) =>
      r.fresh.map((e) => ({
        published: e.published,
        item: {
          kind: "feed" as const,
          id: e.id,
          title: e.title,
          date: new Date(Number.isNaN(e.published) ? deps.clock.now() : e.published).toISOString(),
          text: e.text,
          ...(e.url ? { url: e.url } : {}),
          source: r.url,
        },
      })),
    )
    .sort((a, b) => (Number.isNaN(b.published) ? 0 : b.published) - (Number.isNaN(a.published) ? 0 : a.published))
    .slice(0, limits.maxItems)
    .map((x) => x.item);
  return {
    items,
    missing: null,
    markSeen: async () => {
      for (const r of read) {
        const ids = items.filter((i) => i.source === r.url).map((i) => i.id);
        if (ids.length === 0) continue;
        await updateFeedState(deps, orgId, r.row.id, (state) => {
          const before = state.seen[agentId] ?? [];
          const seen = [...ids, ...before.filter((id) => !ids.includes(id))].slice(0, SEEN_KEPT);
          return { ...state, seen: { ...state.seen, [agentId]: seen } };
        });
      }
    },
  };
}

/** Rewrites a feed's state from its current stored value (another agent's read may have changed it meanwhile). */
async function updateFeedState(deps: SourceDeps, orgId: string, id: string, change: (state: FeedState) => FeedState): Promise<void> {
  const row = await getSource(deps.db, orgId, id);
  if (!row) return;
  const state: FeedState = jsonOr(FeedState, row.state, { seen: {} });
  await saveSourceState(deps.db, orgId, id, JSON.stringify(change(state)), deps.clock.now());
}

/** Opens, updates or resolves the organization's `feeds` alert from the feeds' recorded problems. */
export async function refreshFeedsAlert(deps: Pick<SourceDeps, "db" | "clock">, orgId: string): Promise<void> {
  const failing = (await listSources(deps.db, orgId))
    .filter((s) => s.kind === "feed")
    .map((s) => ({
      url: jsonOr(StoredFeed, s.config, { url: "" }).url,
      problem: jsonOr(FeedState, s.state, { seen: {} } as FeedState).problem,
    }))
    .filter((f) => f.problem);
  const now = deps.clock.now();
  if (failing.length === 0) {
    if (await openOrgAlert(deps.db, orgId, "feeds")) await deps.db.execute(resolveOrgAlertStatement(orgId, "feeds", now));
    return;
  }
  const message = `Feeds: ${failing.map((f) => `${f.url} — ${f.problem}`).join("; ")} ${FIX_IT}`;
  const current = await openOrgAlert(deps.db, orgId, "feeds");
  if (current?.message !== message) await raiseOrgAlert(deps.db, { id: newId("alr", now), orgId, service: "feeds", message }, now);
}
