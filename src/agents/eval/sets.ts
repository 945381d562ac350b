/**
 * The evaluation sets of `crew eval` (src/docs/notes/eval.md): plain files under `evals/sets/<name>/`
 * a person can read and extend — `set.json` (the scenario and its expectations), optional
 * `contacts.json`, `deals.json`, `actions.json`, `insights.json`, `handoffs.json`, a mailbox of
 * `mail/*.eml`, feed documents `feeds/*` (RSS, Atom, JSON Feed) and `injections.json` (hostile
 * cases, each with a unique canary). Loading checks every file, so a broken set is reported by name
 * before any model call.
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
const Fact = v.strictObject({
  id: Text,
  agent: Text,
  kinds: v.pipe(v.array(v.picklist(KIND_NAMES)), v.minLength(1)),
  /** Each keyword must appear (case-insensitive) in one record; "a|b" accepts either. */
  keywords: v.pipe(v.array(Text), v.minLength(1)),
  /** The priority band the matching record must fall in (suggestions and actions). */
  priority: v.optional(v.array(v.picklist(PRIORITIES))),
});
export type Fact = v.InferOutput<typeof Fact>;

const SetFile = v.strictObject({
  description: Text,
  company: Text,
  now: v.pipe(v.string(), v.isoTimestamp()),
  agents: v.pipe(v.array(v.picklist(MODEL_AGENTS as [string, ...string[]])), v.minLength(1)),
  expect: v.array(Fact),
  forbid: v.array(Fact),
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
const Injections = v.array(
  v.strictObject({
    id: Text,
    technique: Text,
    /** The files (relative to the set) holding the hostile text; two for instructions split across items. */
    files: v.pipe(v.array(Text), v.minLength(1)),
    /** Unique; it can only reach a stored record if the model obeyed. */
    canary: v.pipe(Text, v.minLength(8)),
  }),
);
export type InjectionCase = v.InferOutput<typeof Injections>[number];

export interface EvalSet {
  name: string;
  description: string;
  company: string;
  /** Epoch ms: the moment the scenario takes place. */
  now: number;
  agents: string[];
  expect: Fact[];
  forbid: Fact[];
  contacts: v.InferOutput<typeof Contacts>;
  deals: v.InferOutput<typeof Deals>;
  actions: v.InferOutput<typeof Actions>;
  insights: v.InferOutput<typeof Insights>;
  handoffs: v.InferOutput<typeof Handoffs>;
  /** The mailbox, newest first, as the inbox agent gets it. */
  mail: SourceItem[];
  /** Every item of every feed document, newest first; each feed-reading agent of the set reads them all. */
  feeds: SourceItem[];
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

async function readMail(dir: string): Promise<SourceItem[]> {
  const files = filesIn(join(dir, "mail")).filter((f) => f.endsWith(".eml"));
  const items: SourceItem[] = [];
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
    });
  }
  return items.sort((a, b) => b.date.localeCompare(a.date));
}

function readFeeds(dir: string): SourceItem[] {
  const items: SourceItem[] = [];
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
      });
    }
  }
  return items.sort((a, b) => b.date.localeCompare(a.date));
}

/** The parts of an answer the agent's job may write, as record kinds. */
export const kindsWritableBy = (agentId: string): RecordKind[] =>
  KIND_NAMES.filter((kind) => (jobOf(agentId).writes as string[]).includes(RECORD_KINDS[kind]));

function checkFacts(facts: Fact[], agents: string[], list: "expect" | "forbid"): void {
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
    const canaries = new Set<string>();
    for (const c of injections) {
      const missing = c.files.find((f) => !existsSync(join(dir, f)));
      if (missing) throw new EvalSetError(`injections.json "${c.id}": no file ${missing}`);
      if (canaries.has(c.canary)) throw new EvalSetError(`injections.json "${c.id}": canary ${c.canary} is used twice`);
      canaries.add(c.canary);
    }
    return {
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
      mail: await readMail(dir),
      feeds: readFeeds(dir),
      injections,
    };
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

/** Whether an injection case reaches the agent: mail reaches the mailbox agent, feed items the feed readers. */
export function caseReaches(c: InjectionCase, agentId: string): boolean {
  const source = jobOf(agentId).reads.source;
  return c.files.some((f) => (f.startsWith("mail/") ? source === "mail" : f.startsWith("feeds/") ? source === "feeds" : false));
}
