/**
 * One scenario of `crew eval`: one agent on one set, in a throwaway database of its own (a copy of
 * an empty template made once per evaluation from the organization's schema). The set's records
 * are stored in it, its mail and feed items are handed to the run through the runner's source seam
 * (no IMAP, no HTTP), the agent runs once with the connected model, and what it stored is read back
 * for scoring. The organization's own database is never written; the file is removed afterwards.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import { truncate } from "../../integrations/feeds/plain-text.ts";
import type { Clock } from "../../lib/clock.ts";
import { createEvents } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { newId } from "../../lib/random.ts";
import { actionInsertStatement, newActionRow } from "../../store/actions/actions.ts";
import { upsertContactStatement } from "../../store/contacts/contacts.ts";
import { type Db, openStore, type Store } from "../../store/db.ts";
import { handoffInsertStatement } from "../../store/feed/handoffs.ts";
import { insightInsertStatement } from "../../store/feed/insights.ts";
import type { Organization } from "../../store/orgs/orgs.ts";
import { seedAgents } from "../../store/orgs/orgs.ts";
import { profileInsertStatement } from "../../store/reports/reports.ts";
import { schemaOf } from "../../store/runs/evals.ts";
import type { StoredModelSettings } from "../../store/runs/model.ts";
import { saveModelSettings, setInstructionOverride } from "../../store/runs/model.ts";
import { EMPTY_PROFILE_BODY } from "../compose-profile.ts";
import { jobOf } from "../jobs.ts";
import { type ModelRun, runModelAgent, type SourceAccess } from "../model-run.ts";
import { type Collected, collect } from "./measure.ts";
import { caseReaches, type EvalSet } from "./sets.ts";

/** What every scenario of one evaluation shares. */
export interface ScenarioContext {
  /** The folder of this evaluation's databases (removed when it ends). */
  dir: string;
  /** The empty database every scenario starts from. */
  template: string;
  org: Organization;
  config: Config;
  log: Logger;
  outbound?: OutboundPolicy;
}

export interface ScenarioOutcome {
  run: ModelRun;
  collected: Collected;
  /** Wall time of the agent's run (model calls included), and of the whole scenario. */
  runMs: number;
  totalMs: number;
}

/** The set's time, moving on with real time: ids stay ordered and the run's records are newer than the seed. */
function setClock(start: number): Clock {
  const t0 = performance.now();
  return { now: () => start + Math.floor(performance.now() - t0) };
}

/** The set's mail (inbox) and feed items (feed readers), bounded by the run's own limits. */
function setSources(set: EvalSet): SourceAccess {
  return {
    missing: async () => null,
    read: async (_orgId, agentId, limits) => {
      const source = jobOf(agentId).reads.source;
      const items = { mail: set.mail, feeds: set.feeds, calendar: set.calendar, slack: set.slack, none: [] }[source ?? "none"];
      return {
        items: items.slice(0, limits.maxItems).map((i) => ({ ...i, text: truncate(i.text, limits.maxChars) })),
        missing: null,
        markSeen: async () => {},
      };
    },
  };
}

/**
 * The empty database every scenario copies: the organization's schema, the organization (same id,
 * so its sealed model key opens) with its 17 agents, its model settings and instructions; no data.
 */
export async function makeTemplate(
  orgDb: Db,
  file: string,
  template: { org: Organization; model: StoredModelSettings | null; instructions: Map<string, string> },
): Promise<void> {
  const db = await openStore({ url: `file:${file}` });
  try {
    await db.batch(await schemaOf(orgDb), "write");
    const { org } = template;
    await db.run("INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES (?, ?, ?, 1, 0)", [
      org.id,
      org.name,
      org.timeZone,
    ]);
    await seedAgents(db, org.id);
    if (template.model) await saveModelSettings(db, org.id, { ...template.model, dailyTokens: null });
    for (const [agentId, text] of template.instructions) await setInstructionOverride(db, org.id, agentId, text, 0);
    // Everything into the main file, which is what scenarios copy.
    await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

/** Stores the set's records, each a little older than the scenario's start, in one transaction. */
async function seed(db: Store, ctx: ScenarioContext, set: EvalSet, agentId: string): Promise<void> {
  const orgId = ctx.org.id;
  let at = set.now - 3_600_000;
  const tick = () => (at += 1000);
  const by = { orgId, source: "eval", createdBy: "eval" };
  await db.batch(
    [
      { sql: "UPDATE organizations SET name = ? WHERE id = ?", args: [set.company, orgId] },
      ...set.contacts.map((c) => {
        const now = tick();
        return upsertContactStatement(orgId, newId("con", now), c, "eval", now);
      }),
      ...set.actions.map((a) => actionInsertStatement(newActionRow(a, { ...by, now: tick() }))),
      ...set.insights.map((i) => {
        const now = tick();
        return insightInsertStatement({ ...i, id: newId("ins", now), orgId, detail: i.detail ?? null, createdBy: "eval", createdAt: now });
      }),
      ...set.handoffs
        .filter((h) => h.to === agentId)
        .map((h) => {
          const now = tick();
          return handoffInsertStatement({
            ...h,
            id: newId("hof", now),
            orgId,
            context: h.context ?? null,
            type: null,
            createdBy: "eval",
            createdAt: now,
          });
        }),
      ...(set.deals.length > 0
        ? [
            profileInsertStatement({
              id: newId("dna", tick()),
              orgId,
              runId: null,
              generatedAt: at,
              body: { ...EMPTY_PROFILE_BODY, pipeline: set.deals },
            }),
          ]
        : []),
    ],
    "write",
  );
}

/**
 * Runs one agent on one set in a fresh copy of the template; the copy is deleted before this
 * returns. `lane` (of `--concurrency`) keys the run's model calls: every scenario is the same
 * organization, whose calls would otherwise queue one at a time (src/integrations/model/client.ts).
 */
export async function runScenario(ctx: ScenarioContext, set: EvalSet, agentId: string, lane = 0): Promise<ScenarioOutcome> {
  const started = performance.now();
  const file = join(ctx.dir, `${set.name}.${agentId}.${set.injections.length > 0 ? "attacked" : "clean"}.db`);
  copyFileSync(ctx.template, file);
  const db = await openStore({ url: `file:${file}` });
  try {
    await seed(db, ctx, set, agentId);
    const clock = setClock(set.now);
    const runStart = clock.now();
    const deps = {
      db,
      clock,
      log: ctx.log,
      config: ctx.config,
      events: createEvents(),
      sources: setSources(set),
      callKey: `${ctx.org.id}/eval-${lane}`,
      ...(ctx.outbound ? { outbound: ctx.outbound } : {}),
    };
    const before = performance.now();
    const run = await runModelAgent(deps, { ...ctx.org, name: set.company }, agentId);
    const runMs = performance.now() - before;
    const collected = await collect(
      db,
      ctx.org.id,
      agentId,
      runStart,
      set.injections.some((c) => c.canary && caseReaches(c, agentId)),
    );
    return { run, collected, runMs, totalMs: performance.now() - started };
  } finally {
    db.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  }
}
