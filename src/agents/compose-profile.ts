/**
 * The dna agent's composition (src/docs/notes/agents-runtime.md), from stored data only, no model. What runners
 * reported through the agent-run API is kept (archetype, strengths, weaknesses, their patterns,
 * the pipeline: a profile field is replaced only by a later report of that field); the built-in
 * runner adds what it can derive itself — patterns named Network, Feed and Pipeline, recomputed on
 * every run — and an archetype only while none was reported.
 */
import type { Evidence } from "../domain.ts";
import type { ProfileSources } from "../store/reports/reports.ts";

export interface ProfileBody {
  archetype: string;
  strengths: string[];
  weaknesses: string[];
  patterns: { name: string; insight: string }[];
  pipeline: { company: string; stage: string; value: number }[];
  /** What each model-written claim rests on (src/docs/notes/prompt-injection.md#words), by the claim's text. */
  claimEvidence?: { claim: string; evidence: Evidence[] }[];
}

export const EMPTY_PROFILE_BODY: ProfileBody = { archetype: "unknown", strengths: [], weaknesses: [], patterns: [], pipeline: [] };

/** Patterns the built-in runner writes (and rewrites on every run); any other name is a reported one. */
export const DERIVED_PATTERNS = ["Network", "Feed", "Pipeline"];

/**
 * A reported (partial) profile over the last one: each field sent replaces that field, but the
 * pipeline, which changes deal by deal (src/docs/notes/prompt-injection.md#caps): a reported deal
 * replaces the deal of that company (matched case-insensitively) or is added; no deal is removed,
 * and an empty pipeline changes nothing.
 */
export function mergeProfile(
  last: ProfileBody | null,
  reported: Partial<Omit<ProfileBody, "pipeline">> & { pipeline?: (ProfileBody["pipeline"][number] & { evidence?: unknown })[] },
): ProfileBody {
  const base = { ...EMPTY_PROFILE_BODY, ...last };
  const { pipeline: deals, ...fields } = reported;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const pipeline = [...base.pipeline];
  for (const { company, stage, value } of deals ?? []) {
    const at = pipeline.findIndex((d) => d.company.trim().toLowerCase() === company.trim().toLowerCase());
    if (at >= 0) pipeline[at] = { company: pipeline[at]!.company, stage, value };
    else pipeline.push({ company, stage, value });
  }
  return { ...base, ...defined, pipeline };
}

const money = (n: number) => `$${Math.round(n).toLocaleString("en-US")}`;
const STAGE_ORDER = ["lead", "qualified", "proposal", "negotiation", "closed"];

function derivedPatterns(pipeline: ProfileBody["pipeline"], sources: ProfileSources): ProfileBody["patterns"] {
  const patterns: ProfileBody["patterns"] = [];
  const byRelationship = sources.contactsByRelationship;
  const contacts = Object.values(byRelationship).reduce((sum, n) => sum + n, 0);
  if (contacts > 0) {
    const close = (byRelationship.key ?? 0) + (byRelationship.active ?? 0);
    const companies = sources.topCompanies.length ? `; most connected: ${sources.topCompanies.slice(0, 3).join(", ")}` : "";
    patterns.push({
      name: "Network",
      insight: `${contacts} contact${contacts === 1 ? "" : "s"} in the CRM, ${close} of them key or active relationships${companies}.`,
    });
  }
  const types = Object.entries(sources.insightsByType).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const insights = types.reduce((sum, [, n]) => sum + n, 0);
  if (insights > 0) {
    const high = sources.highImpactInsights.length ? `; high impact: ${sources.highImpactInsights.join("; ")}` : "";
    patterns.push({
      name: "Feed",
      insight: `${insights} insight${insights === 1 ? "" : "s"} posted in the last 30 days, mostly ${types[0]?.[0]}${high}.`,
    });
  }
  const open = pipeline.filter((d) => d.stage !== "closed");
  if (pipeline.length > 0) {
    const furthest = [...open].sort((a, b) => STAGE_ORDER.indexOf(b.stage) - STAGE_ORDER.indexOf(a.stage) || b.value - a.value)[0];
    const total = open.reduce((sum, d) => sum + d.value, 0);
    patterns.push({
      name: "Pipeline",
      insight: `${open.length} open deal${open.length === 1 ? "" : "s"} worth ${money(total)}${furthest ? `; furthest along: ${furthest.company} (${furthest.stage})` : ""}.`,
    });
  }
  return patterns;
}

const DERIVED_ARCHETYPES = [
  "unknown",
  "B2B company with an active deal pipeline",
  "Relationship-driven B2B company",
  "Early-stage company building its network",
] as const;

function derivedArchetype(pipeline: ProfileBody["pipeline"], sources: ProfileSources): string {
  const byRelationship = sources.contactsByRelationship;
  const contacts = Object.values(byRelationship).reduce((sum, n) => sum + n, 0);
  if (pipeline.length > 0) return DERIVED_ARCHETYPES[1];
  if ((byRelationship.key ?? 0) + (byRelationship.active ?? 0) > 0) return DERIVED_ARCHETYPES[2];
  if (contacts > 0) return DERIVED_ARCHETYPES[3];
  return DERIVED_ARCHETYPES[0];
}

export function composeProfile(last: ProfileBody | null, sources: ProfileSources): ProfileBody {
  const base = { ...EMPTY_PROFILE_BODY, ...last };
  const reportedPatterns = base.patterns.filter((p) => !DERIVED_PATTERNS.includes(p.name));
  // A reported archetype is kept; one this runner derived earlier is derived again from today's data.
  const reported = base.archetype && !(DERIVED_ARCHETYPES as readonly string[]).includes(base.archetype);
  const archetype = reported ? base.archetype : derivedArchetype(base.pipeline, sources);
  return { ...base, archetype, patterns: [...reportedPatterns, ...derivedPatterns(base.pipeline, sources)] };
}
