/**
 * What a model-backed run hands the model (src/docs/notes/model.md): the inputs its catalog entry names,
 * bounded and truncated, each under a handle of its own (src/agents/handles.ts), plus the
 * organization's open suggestions and actions (newest 50 each) and the last 30 days' dismissals,
 * so that it says each thing once. Every part is JSON inside a delimited <data> field; parts from
 * outside are fenced (policy/fence.ts). Each input's trust (policy/provenance.ts) rides on its
 * handle, and what the write policy reads of the run (whole texts, mail headers) is returned beside.
 */

import { isAgentId, type Trust } from "../domain.ts";
import { isBulkMail } from "../integrations/mail/imap.ts";
import type { SourceItem } from "../integrations/sources.ts";
import { iso } from "../lib/clock.ts";
import { listOpenActions } from "../store/actions/actions.ts";
import { dismissedSince, newestOpenSuggestions } from "../store/actions/suggestions.ts";
import { recentContacts } from "../store/contacts/contacts.ts";
import type { Db } from "../store/db.ts";
import { latestProfile } from "../store/reports/reports.ts";
import { latestMetrics } from "../store/runs/agents.ts";
import type { ProfileBody } from "./compose-profile.ts";
import { createHandles, crewUrl, type Handles } from "./handles.ts";
import type { AgentJob } from "./jobs.ts";
import type { Fence } from "./policy/fence.ts";
import { addressTrust, type InsideWorld } from "./policy/provenance.ts";
import { DISMISSAL_MEMORY_MS } from "./policy/said-once.ts";
import { comparable, sameMeaning } from "./policy/similarity.ts";
import type { Reading, ReadMail } from "./policy/write-policy.ts";
import type { StartedRun } from "./run-api.ts";

/** Open suggestions and actions handed to every run (newest first), so it can say `sameAs`. */
export const OPEN_HANDED_OVER = 50;

const cut = (text: string | null | undefined, max: number) => {
  if (!text) return text ?? null;
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/** A JSON payload posted to the agent's trigger (src/docs/notes/connections.md): external, untrusted data. */
export interface TriggerEvent {
  /** The webhook-id of a signed post, else an id of Crew's. */
  id: string;
  payload: unknown;
  receivedAt: number;
}

/** Characters of an event's JSON handed to the model: a 64 KiB payload is cut, not refused. */
const EVENT_CHARS = 8000;

/** A mail's header addresses (From, To, Cc) and whether it is bulk, from either shape a source gives (IMAP, or a connected account). */
function mailRead(m: SourceItem): ReadMail {
  const sender = m.from?.email?.trim().toLowerCase();
  const listed = m.recipients ?? [...(m.to ?? []), ...(m.cc ?? [])].flatMap((a) => (a.email ? [a.email.trim().toLowerCase()] : []));
  const headers = Object.entries(m.headers ?? {}).map(([key, value]) => ({ key, value }));
  return { addresses: [...(sender ? [sender] : []), ...listed], bulk: m.bulk ?? isBulkMail(headers, sender) };
}

export interface RunInputs {
  fields: string[];
  handles: Handles;
  /** What the write policy reads of the run (src/agents/policy/write-policy.ts). */
  reading: Omit<Reading, "base">;
}

/** Queued handoffs saying the same thing (policy/similarity.ts) are handed to the run once: the first of each. */
export function distinctHandoffs<T extends { title: string }>(handoffs: readonly T[]): T[] {
  const kept: { h: T; seen: ReturnType<typeof comparable> }[] = [];
  for (const h of handoffs) {
    const seen = comparable(h.title);
    if (!kept.some((k) => sameMeaning(k.seen, seen))) kept.push({ h, seen });
  }
  return kept.map((k) => k.h);
}

/** A contact a run created (from mail it read) is outside input for the next run; one people entered is not. */
const contactTrust = (createdBy: string): Trust => (isAgentId(createdBy) ? "external" : "internal");

export async function gatherInputs(
  deps: { db: Db; config: { baseUrl: string } },
  orgId: string,
  job: AgentJob,
  started: StartedRun,
  sourceItems: SourceItem[],
  now: number,
  fence: Fence,
  insideWorld: InsideWorld,
  event?: TriggerEvent,
): Promise<RunInputs> {
  const field = fence.field;
  const { limits, reads } = job;
  const c = limits.recordChars;
  const base = deps.config.baseUrl;
  const handles = createHandles();
  const [contacts, actions, profile, metrics, suggestions, dismissed] = await Promise.all([
    reads.contacts ? recentContacts(deps.db, orgId, limits.contacts) : [],
    listOpenActions(deps.db, orgId, Math.max(OPEN_HANDED_OVER, reads.actions ? limits.actions : 0)),
    reads.pipeline ? latestProfile<ProfileBody>(deps.db, orgId) : null,
    reads.metrics ? latestMetrics(deps.db, orgId) : null,
    newestOpenSuggestions(deps.db, orgId, OPEN_HANDED_OVER),
    dismissedSince(deps.db, orgId, now - DISMISSAL_MEMORY_MS, OPEN_HANDED_OVER),
  ]);
  const internal: string[] = [];
  const crew = (kind: Parameters<typeof crewUrl>[1], ref: string, title: string, excerpt: string | null | undefined, trust: Trust) => {
    if (trust === "internal") internal.push(`${title}\n${excerpt ?? ""}`);
    return handles.add({ kind, ref, title, url: crewUrl(base, kind, ref, title), ...(excerpt ? { excerpt } : {}), trust });
  };
  const fields = [
    field(
      "handoffs",
      distinctHandoffs(started.handoffs).map((h) => ({
        handle: crew("handoff", h.id, h.title, h.context, h.provenance),
        from: h.from,
        title: cut(h.title, c),
        context: cut(h.context, c),
        priority: h.priority,
        type: h.type,
        at: iso(h.createdAt),
      })),
    ),
  ];
  if (reads.insights || started.insights.length > 0) {
    fields.push(
      field(
        "insights",
        started.insights.slice(0, limits.insights).map((i) => ({
          handle: crew("insight", i.id, i.title, i.detail, i.provenance),
          agent: i.agent,
          title: cut(i.title, c),
          detail: cut(i.detail, c),
          type: i.type,
          impact: i.impact,
          at: iso(i.createdAt),
        })),
      ),
    );
  }
  if (reads.contacts)
    fields.push(
      field(
        "contacts",
        contacts.map(({ createdBy, ...x }) => ({
          handle: crew("contact", x.id, x.email ? `${x.name} <${x.email}>` : x.name, x.notes, contactTrust(createdBy)),
          ...x,
          notes: cut(x.notes, c),
        })),
      ),
    );
  fields.push(
    field(
      "open_actions",
      actions.map((a) => ({
        handle: crew("action", a.id, a.title, a.description, a.provenance),
        title: cut(a.title, c),
        priority: a.priority,
        status: a.status,
        type: a.type,
        source: a.source,
        contactId: a.contactId,
        at: iso(a.createdAt),
      })),
    ),
    field(
      "open_suggestions",
      suggestions.map((s) => ({
        handle: crew("suggestion", s.id, s.title, s.detail, s.provenance),
        title: cut(s.title, c),
        agent: s.agent,
      })),
    ),
    field(
      "dismissed_suggestions",
      dismissed.map((s) => ({ title: cut(s.title, c), reason: s.reason })),
    ),
  );
  if (reads.pipeline)
    fields.push(
      field(
        "pipeline",
        (profile?.body.pipeline ?? []).slice(0, limits.deals).map((d) => ({
          handle: handles.add({
            kind: "deal",
            ref: d.company,
            title: `${d.company} (${d.stage})`,
            url: crewUrl(base, "deal", d.company, d.company),
            trust: "internal",
          }),
          ...d,
        })),
      ),
    );
  if (reads.metrics)
    fields.push(
      field(
        "metrics",
        metrics && {
          handle: handles.add({
            kind: "metric",
            ref: "pulse",
            title: `DAU ${metrics.dau}, WAU ${metrics.wau}, MRR ${metrics.mrr}`,
            trust: "internal",
          }),
          ...metrics,
        },
      ),
    );
  const mailReads = new Map<string, ReadMail>();
  if (reads.source === "mail") {
    // All mail is fenced as outside data (a member may forward anything); a mail from a member or an internal
    // domain is marked so, and its records may weigh more (policy/provenance.ts, policy/write-policy.ts).
    const mail = sourceItems.map((m) => {
      const trust = addressTrust(m.from?.email, insideWorld);
      const ref = m.messageId ?? `uid:${m.id}`;
      mailReads.set(`mail ${ref}`, mailRead(m));
      if (trust === "internal") internal.push(`${m.title}\n${m.text}`);
      return {
        handle: handles.add(
          {
            kind: "mail",
            ref,
            title: `${m.title} — ${m.from?.name ?? m.from?.email ?? "unknown sender"}`,
            // Mail of a connected account opens in Gmail or Outlook (src/docs/notes/connections.md).
            url: m.url,
            excerpt: m.text,
            trust,
          },
          m.text,
        ),
        from: m.from ?? null,
        fromTheOrganization: trust === "internal",
        subject: cut(m.title, 300),
        date: m.date,
        body: cut(m.text, limits.chars),
      };
    });
    fields.push(field("mail", mail, true));
  }
  if (reads.source === "feeds") {
    const items = sourceItems.map((i) => ({
      handle: handles.add(
        { kind: "feed_item", ref: i.id || i.url || i.title, title: i.title, url: i.url, excerpt: i.text, trust: "external" },
        i.text,
      ),
      title: cut(i.title, 300),
      url: i.url ?? null,
      date: i.date,
      feed: i.source,
      text: cut(i.text, limits.chars),
    }));
    fields.push(field("feed_items", items, true));
  }
  if (reads.source === "calendar") {
    // The next 7 days of the connected calendars (src/docs/notes/calendar.md); invitations come from outside: untrusted.
    const events = sourceItems.map((e) => ({
      handle: handles.add(
        {
          kind: "calendar_event",
          ref: e.id,
          title: `${e.title} — ${e.event?.allDay ? e.date.slice(0, 10) : e.date} (${e.source})`,
          excerpt: e.text,
          // An invitation is internal when a member or an internal domain organized it (policy/provenance.ts); an
          // event without an organizer is the calendar owner's own (RFC 5545 §3.8.4.3: invitations name theirs).
          trust: e.from?.email ? addressTrust(e.from.email, insideWorld) : "internal",
        },
        `${e.event?.location ?? ""}\n${e.text}`,
      ),
      title: cut(e.title, 300),
      start: e.event?.start ?? e.date,
      end: e.event?.end ?? e.date,
      allDay: e.event?.allDay ?? false,
      free: e.event?.free ?? false,
      location: e.event?.location ?? null,
      attendees: e.event?.attendees ?? [],
      calendar: e.source,
      description: cut(e.text, limits.chars),
    }));
    fields.push(field("calendar_events", events, true));
  }
  if (reads.source === "slack") {
    // Ref `channel/ts` and the permalink (src/integrations/slack/reader.ts).
    const messages = sourceItems.map((m) => ({
      // Chat counts as outside input: Crew cannot yet tell a member's message from a guest's (src/docs/notes/prompt-injection.md#provenance).
      handle: handles.add(
        {
          kind: "slack_message",
          ref: m.id,
          title: `${m.source}: ${m.from?.name ?? "someone"}, ${m.date}`,
          url: m.url,
          excerpt: m.text,
          trust: "external",
        },
        m.text,
      ),
      channel: m.source,
      url: m.url ?? null,
      user: m.from?.name ?? null,
      date: m.date,
      text: cut(m.text, limits.chars),
    }));
    fields.push(field("slack_messages", messages, true));
  }
  if (event) {
    // An event posted to a trigger is outside input (src/docs/notes/prompt-injection.md#provenance).
    const text = JSON.stringify(event.payload) ?? "null";
    fields.push(
      field(
        "event",
        {
          handle: handles.add(
            { kind: "event", ref: event.id, title: `Event posted to the ${job.id} agent's trigger`, excerpt: text, trust: "external" },
            text,
          ),
          receivedAt: iso(event.receivedAt),
          payload: text.length > EVENT_CHARS ? cut(text, EVENT_CHARS) : event.payload,
        },
        true,
      ),
    );
  }
  return { fields, handles, reading: { texts: handles.texts(), mail: mailReads, internalText: internal.join("\n") } };
}

/** How records cite the data, told in every run's user message (owners may replace the instructions, not this). */
export const CITING_RULES = [
  'Every item of the data carries a "handle" (m1 a mail, f1 a feed item, e1 a calendar event, k1 a chat message, c1 a contact, a1 an action, s1 a suggestion, …).',
  'Each suggestion, action, insight and handoff you write must list in "evidence" the handles of the items it rests on: only handles given here.',
  'If something you would write is already among open_suggestions or open_actions, set "sameAs" to that handle (it is merged, not repeated).',
  "Do not suggest again anything listed in dismissed_suggestions. Do not put links in your text other than the url of an item you cite.",
].join(" ");
