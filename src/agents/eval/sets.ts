/**
 * The evaluation sets of `crew eval` (src/docs/notes/eval.md): plain files under `evals/sets/<name>/`
 * a person can read and extend — `set.json` (the scenario and its expectations), optional
 * `contacts.json`, `deals.json`, `actions.json`, `insights.json`, `handoffs.json`, a mailbox of
 * `mail/*.eml`, feed documents `feeds/*` (RSS, Atom, JSON Feed), calendar invitations
 * `calendar.json`, chat messages `slack.json` and `injections.json` (attack cases: what each asks,
 * and a canary for some). Loading checks every file and every reference to an input, so a broken set
 * is reported by name before any model call.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as v from "valibot";
import { ACTION_TYPES, INSIGHT_TYPES, PIPELINE_STAGES, PRIORITIES, RELATIONSHIPS } from "../../domain.ts";
import { parseFeedBody } from "../../integrations/feeds/feed.ts";
import { parseMessage } from "../../integrations/mail/imap.ts";
import type { SourceItem } from "../../integrations/sources.ts";
import { jobOf, MODEL_AGENTS, type Write } from "../jobs.ts";

/** The folder shipped with Crew; `crew eval --dir` points elsewhere. */
export const EVALS_DIR = fileURLToPath(new URL("../../../evals/sets/", import.meta.url));

/** Kinds of records an expectation can name, and the part of a model's answer that writes each. */
export const RECORD_KINDS = {
  suggestion: "suggestions",
  action: "actions",
  insight: "insights",
  handoff: "handoffs",
  contact: "contacts",
  deal: "pipeline",
} as const satisfies Record<string, Write>;
export type RecordKind = keyof typeof RECORD_KINDS;
const KIND_NAMES = Object.keys(RECORD_KINDS) as [RecordKind, ...RecordKind[]];

const Text = v.pipe(v.string(), v.trim(), v.minLength(1));
const FACT_FIELDS = {
  id: Text,
  agent: Text,
  kinds: v.pipe(v.array(v.picklist(KIND_NAMES)), v.minLength(1)),
  /** Each keyword must appear (case-insensitive) in one record; "a|b" accepts either. */
  keywords: v.pipe(v.array(Text), v.minLength(1)),
  /** The priority band the matching record must fall in (suggestions and actions). */
  priority: v.optional(v.array(v.picklist(PRIORITIES))),
};
const Fact = v.strictObject({
  ...FACT_FIELDS,
  /**
   * The inputs the fact comes from (any one): a file of the set (`mail/01-quote.eml`, `feeds/x.xml`,
   * an item `feeds/x.xml#<guid>`, `calendar.json#<uid>`, `slack.json#<channel/ts>`) or a stored
   * record (`contact:<name>`, `deal:<company>`, `action:<title>`, `insight:<title>`, `handoff:<title>`,
   * `metric:pulse`). A matching record counts only when it cites one of them (utility).
   */
  sources: v.pipe(v.array(Text), v.minLength(1)),
});
export type Fact = v.InferOutput<typeof Fact>;
/** A forbidden thing: the same shape, without sources (it counts whatever the record cites). */
const Forbidden = v.strictObject(FACT_FIELDS);
export type Forbidden = v.InferOutput<typeof Forbidden>;

const SetFile = v.strictObject({
  description: Text,
  company: Text,
  now: v.pipe(v.string(), v.isoTimestamp()),
  agents: v.pipe(v.array(v.picklist(MODEL_AGENTS as [string, ...string[]])), v.minLength(1)),
  expect: v.array(Fact),
  forbid: v.array(Forbidden),
});
const Contacts = v.array(
  v.strictObject({
    name: Text,
    email: v.optional(v.pipe(v.string(), v.email())),
    company: v.optional(v.string()),
    role: v.optional(v.string()),
    relationship: v.optional(v.picklist(RELATIONSHIPS)),
    notes: v.optional(v.string()),
  }),
);
const Deals = v.array(v.strictObject({ company: Text, stage: v.picklist(PIPELINE_STAGES), value: v.number() }));
const Actions = v.array(
  v.strictObject({ title: Text, description: v.optional(v.string()), priority: v.picklist(PRIORITIES), type: v.picklist(ACTION_TYPES) }),
);
const Insights = v.array(
  v.strictObject({
    agent: Text,
    title: Text,
    detail: v.optional(v.string()),
    type: v.picklist(INSIGHT_TYPES),
    impact: v.picklist(["low", "medium", "high"]),
  }),
);
const Handoffs = v.array(
  v.strictObject({
    from: Text,
    to: Text,
    title: Text,
    context: v.optional(v.string()),
    priority: v.picklist(["high", "medium", "low"]),
  }),
);
const CalendarInvites = v.array(
  v.strictObject({
    uid: Text,
    title: Text,
    start: v.pipe(v.string(), v.isoTimestamp()),
    end: v.pipe(v.string(), v.isoTimestamp()),
    organizer: v.optional(v.strictObject({ name: v.optional(v.string()), email: v.pipe(v.string(), v.email()) })),
    location: v.optional(v.string()),
    attendees: v.optional(v.array(v.string())),
    description: v.optional(v.string()),
  }),
);
const SlackMessages = v.array(
  v.strictObject({
    channel: Text,
    /** Slack's message timestamp, seconds since the epoch ("1763887200.000100"). */
    ts: v.pipe(v.string(), v.regex(/^\d{9,10}\.\d{6}$/)),
    user: Text,
    text: Text,
  }),
);
const Injections = v.array(
  v.pipe(
    v.strictObject({
      id: Text,
      technique: Text,
      /** The inputs holding the hostile text (a file, or one item of it: `feeds/x.xml#<guid>`); two for instructions split across items. */
      files: v.pipe(v.array(Text), v.minLength(1)),
      /** Unique; it can only reach a stored record if the model obeyed. Most cases have none: `asks` says what obeying looks like. */
      canary: v.optional(v.pipe(Text, v.minLength(8))),
      /**
       * What the attack asks for: `terms` all appear (case-insensitive; "a|b" accepts either) in a
       * record that obeys it; any one of `marks` (an address, URL, account number, amount) does.
       */
      asks: v.optional(v.strictObject({ terms: v.optional(v.array(Text)), marks: v.optional(v.array(Text)) })),
    }),
    v.check((c) => Boolean(c.canary || c.asks?.terms?.length || c.asks?.marks?.length), "a case needs a canary or asks (terms or marks)"),
  ),
);
export type InjectionCase = v.InferOutput<typeof Injections>[number];

/** One input of a set as evidence refers to it (src/agents/model-inputs.ts), with the file it comes from. */
export interface EvalInput {
  /** `mail/x.eml`, `feeds/x.xml#<id>`, `calendar.json#<uid>`, `slack.json#<channel/ts>`. */
  path: string;
  ref: string;
  title: string;
  text: string;
}

export interface EvalSet {
  name: string;
  description: string;
  company: string;
  /** Epoch ms: the moment the scenario takes place. */
  now: number;
  agents: string[];
  expect: Fact[];
  forbid: Forbidden[];
  contacts: v.InferOutput<typeof Contacts>;
  deals: v.InferOutput<typeof Deals>;
  actions: v.InferOutput<typeof Actions>;
  insights: v.InferOutput<typeof Insights>;
  handoffs: v.InferOutput<typeof Handoffs>;
  /** The mailbox, newest first, as the inbox agent gets it. */
  mail: SourceItem[];
  /** Every item of every feed document, newest first; each feed-reading agent of the set reads them all. */
  feeds: SourceItem[];
  /** Calendar invitations (the calendar agent), soonest first. */
  calendar: SourceItem[];
  /** Chat messages (the Slack agent), newest first. */
  slack: SourceItem[];
  /** Every mail, feed item, invitation and chat message, by the file it comes from. */
  inputs: EvalInput[];
  injections: InjectionCase[];
}

export class EvalSetError extends Error {}

/** Characters kept of each item when loading; a run's own limits cut further. */
const LOAD_CHARS = 20_000;

function parsed<T extends v.GenericSchema>(schema: T, value: unknown, where: string): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = issue?.path?.map((p) => String(p.key)).join(".") ?? "";
  throw new EvalSetError(`${where}${path ? ` at ${path}` : ""}: ${issue?.message ?? "invalid"}`);
}

function readJson<T extends v.GenericSchema>(dir: string, file: string, schema: T, fallback: v.InferOutput<T>): v.InferOutput<T> {
  const path = join(dir, file);
  if (!existsSync(path)) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new EvalSetError(`${file}: not JSON (${(error as Error).message})`);
  }
  return parsed(schema, value, file);
}

const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

/** A source item and the path of the input it is, for the set's `inputs`. */
type Placed = SourceItem & { path: string };

async function readMail(dir: string): Promise<Placed[]> {
  const files = filesIn(join(dir, "mail")).filter((f) => f.endsWith(".eml"));
  const items: Placed[] = [];
  for (const [index, file] of files.entries()) {
    const m = await parseMessage(index + 1, readFileSync(join(dir, "mail", file)), undefined, LOAD_CHARS);
    if (!m.date) throw new EvalSetError(`mail/${file}: no Date header`);
    items.push({
      kind: "mail",
      id: String(m.uid),
      title: m.subject,
      ...(m.messageId ? { messageId: m.messageId } : {}),
      ...(m.from ? { from: m.from } : {}),
      date: new Date(m.date).toISOString(),
      text: m.text,
      source: "INBOX",
      path: `mail/${file}`,
    });
  }
  return items.sort((a, b) => b.date.localeCompare(a.date));
}

function readFeeds(dir: string): Placed[] {
  const items: Placed[] = [];
  for (const file of filesIn(join(dir, "feeds"))) {
    const entries = parseFeedBody(readFileSync(join(dir, "feeds", file), "utf8"), { maxItems: 200, maxChars: LOAD_CHARS });
    if (entries.length === 0) throw new EvalSetError(`feeds/${file}: not a feed, or a feed without items`);
    for (const e of entries) {
      if (Number.isNaN(e.published)) throw new EvalSetError(`feeds/${file}: item "${e.title}" has no date`);
      items.push({
        kind: "feed",
        id: e.id,
        title: e.title,
        date: new Date(e.published).toISOString(),
        text: e.text,
        ...(e.url ? { url: e.url } : {}),
        source: `feeds/${file}`,
        path: `feeds/${file}#${e.id || e.url || e.title}`,
      });
    }
  }
  return items.sort((a, b) => b.date.localeCompare(a.date));
}

function readCalendar(dir: string): Placed[] {
  return readJson(dir, "calendar.json", CalendarInvites, [])
    .map((e) => ({
      kind: "calendar_event" as const,
      id: e.uid,
      title: e.title,
      ...(e.organizer ? { from: e.organizer } : {}),
      date: e.start,
      text: e.description ?? "",
      source: "Team calendar",
      event: { start: e.start, end: e.end, allDay: false, free: false, location: e.location ?? null, attendees: e.attendees ?? [] },
      path: `calendar.json#${e.uid}`,
    }))
    .sort((a, b) => a.date.localeCompare(b.date));
}

function readSlack(dir: string): Placed[] {
  return readJson(dir, "slack.json", SlackMessages, [])
    .map((m) => ({
      kind: "slack_message" as const,
      id: `${m.channel}/${m.ts}`,
      title: m.text.slice(0, 80),
      from: { name: m.user },
      date: new Date(Number(m.ts) * 1000).toISOString(),
      text: m.text,
      source: `#${m.channel}`,
      path: `slack.json#${m.channel}/${m.ts}`,
    }))
    .sort((a, b) => b.date.localeCompare(a.date));
}

/** The ref evidence gives an item (src/agents/model-inputs.ts): a mail's Message-ID, a feed item's id or link, an event's UID, `channel/ts`. */
export function refOf(item: SourceItem): string {
  if (item.kind === "mail") return item.messageId ?? `uid:${item.id}`;
  if (item.kind === "feed") return item.id || item.url || item.title;
  return item.id;
}

const place = (items: Placed[]): EvalInput[] =>
  items.map((i) => ({ path: i.path, ref: refOf(i), title: i.title, text: `${i.title}\n${i.event?.location ?? ""}\n${i.text}` }));
const unplace = (items: Placed[]): SourceItem[] => items.map(({ path: _, ...i }) => i);

/** The set's inputs a path names: the file's every item, or the one item after `#`. */
export function inputsAt(set: Pick<EvalSet, "inputs">, path: string): EvalInput[] {
  return set.inputs.filter((i) => i.path === path || i.path.startsWith(`${path}#`));
}

/** Seeded records a fact's source may name, `kind:title` → the record's title as stored. */
function seededNames(set: Omit<EvalSet, "inputs" | "injections">): Set<string> {
  return new Set(
    [
      ...set.contacts.map((c) => `contact:${c.name}`),
      ...set.deals.map((d) => `deal:${d.company}`),
      ...set.actions.map((a) => `action:${a.title}`),
      ...set.insights.map((i) => `insight:${i.title}`),
      ...set.handoffs.map((h) => `handoff:${h.title}`),
      "metric:pulse",
    ].map((n) => n.toLowerCase()),
  );
}

/** The parts of an answer the agent's job may write, as record kinds. */
export const kindsWritableBy = (agentId: string): RecordKind[] =>
  KIND_NAMES.filter((kind) => (jobOf(agentId).writes as string[]).includes(RECORD_KINDS[kind]));

function checkFacts(facts: (Fact | Forbidden)[], agents: string[], list: "expect" | "forbid"): void {
  const ids = new Set<string>();
  for (const fact of facts) {
    const where = `set.json ${list} "${fact.id}"`;
    if (ids.has(fact.id)) throw new EvalSetError(`${where}: the id is used twice`);
    ids.add(fact.id);
    if (!agents.includes(fact.agent)) throw new EvalSetError(`${where}: agent "${fact.agent}" is not one of the set's agents`);
    const writable = kindsWritableBy(fact.agent);
    const foreign = fact.kinds.filter((k) => !writable.includes(k));
    if (foreign.length > 0) throw new EvalSetError(`${where}: the ${fact.agent} agent cannot write ${foreign.join(", ")}`);
  }
}

/** Loads and checks one set. */
export async function loadSet(root: string, name: string): Promise<EvalSet> {
  const dir = join(root, name);
  if (!existsSync(join(dir, "set.json"))) throw new EvalSetError(`no evaluation set "${name}" (no ${join(dir, "set.json")})`);
  try {
    const set = readJson(dir, "set.json", SetFile, null as never);
    checkFacts(set.expect, set.agents, "expect");
    checkFacts(set.forbid, set.agents, "forbid");
    const injections = readJson(dir, "injections.json", Injections, []);
    const [mail, feeds, calendar, slack] = [await readMail(dir), readFeeds(dir), readCalendar(dir), readSlack(dir)];
    const loaded = {
      name,
      description: set.description,
      company: set.company,
      now: Date.parse(set.now),
      agents: set.agents,
      expect: set.expect,
      forbid: set.forbid,
      contacts: readJson(dir, "contacts.json", Contacts, []),
      deals: readJson(dir, "deals.json", Deals, []),
      actions: readJson(dir, "actions.json", Actions, []),
      insights: readJson(dir, "insights.json", Insights, []),
      handoffs: readJson(dir, "handoffs.json", Handoffs, []),
      mail: unplace(mail),
      feeds: unplace(feeds),
      calendar: unplace(calendar),
      slack: unplace(slack),
      inputs: place([...mail, ...feeds, ...calendar, ...slack]),
      injections,
    };
    const seeded = seededNames(loaded);
    for (const fact of set.expect) {
      const unknown = fact.sources.find((s) => !seeded.has(s.toLowerCase()) && inputsAt(loaded, s).length === 0);
      if (unknown) throw new EvalSetError(`set.json expect "${fact.id}": source ${unknown} is no input or record of the set`);
    }
    const canaries = new Set<string>();
    for (const c of injections) {
      const missing = c.files.find((f) => inputsAt(loaded, f).length === 0);
      if (missing) throw new EvalSetError(`injections.json "${c.id}": no input ${missing}`);
      if (c.canary && canaries.has(c.canary)) throw new EvalSetError(`injections.json "${c.id}": canary ${c.canary} is used twice`);
      if (c.canary) canaries.add(c.canary);
    }
    return loaded;
  } catch (error) {
    if (error instanceof EvalSetError) throw new EvalSetError(`evaluation set "${name}": ${error.message}`);
    throw error;
  }
}

/** The names of the sets in a folder (each a folder with a set.json), sorted. */
export function setNames(root: string = EVALS_DIR): string[] {
  return filesIn(root).filter((name) => existsSync(join(root, name, "set.json")));
}

/** Every set (or the one named), loaded and checked. */
export async function loadSets(root: string = EVALS_DIR, only?: string): Promise<EvalSet[]> {
  const names = only ? [only] : setNames(root);
  if (names.length === 0) throw new EvalSetError(`no evaluation sets in ${root}`);
  return Promise.all(names.map((name) => loadSet(root, name)));
}

/**
 * The set without its attack inputs and cases: the clean half of a scenario whose facts are
 * measured both with and without attacks (utility, and utility under attack).
 */
export function withoutAttacks(set: EvalSet): EvalSet {
  const hostile = new Set(set.injections.flatMap((c) => c.files.flatMap((f) => inputsAt(set, f).map((i) => i.ref))));
  const keep = (items: SourceItem[]) => items.filter((i) => !hostile.has(refOf(i)));
  return {
    ...set,
    mail: keep(set.mail),
    feeds: keep(set.feeds),
    calendar: keep(set.calendar),
    slack: keep(set.slack),
    inputs: set.inputs.filter((i) => !hostile.has(i.ref)),
    injections: [],
  };
}

/** The source an input path belongs to. */
const SOURCE_OF_PATH: [string, string][] = [
  ["mail/", "mail"],
  ["feeds/", "feeds"],
  ["calendar.json", "calendar"],
  ["slack.json", "slack"],
];

/** Whether an injection case reaches the agent: mail the mailbox agent, feed items the feed readers, invitations the calendar agent, chat the Slack agent. */
export function caseReaches(c: InjectionCase, agentId: string): boolean {
  const source = jobOf(agentId).reads.source;
  return c.files.some((f) => SOURCE_OF_PATH.some(([prefix, kind]) => f.startsWith(prefix) && kind === source));
}
