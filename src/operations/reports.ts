/** Read operations over stored agent output: standup, briefing, suggestions, company profile. */
import * as v from "valibot";
import { type BriefingBody, generateBriefing } from "../agents/compose-briefing.ts";
import { readAccess } from "../auth/access.ts";
import { PIPELINE_STAGES, SUGGESTION_AGENTS } from "../domain.ts";
import { ApiError } from "../errors.ts";
import { iso } from "../lib/clock.ts";
import { listSuggestions } from "../store/actions/suggestions.ts";
import { latestBriefing, latestProfile, latestStandup } from "../store/reports/reports.ts";
import { defineOperation } from "./registry.ts";
import { DateTime, Priority } from "./schemas.ts";
import { Suggestion, toSuggestionView } from "./suggestions.ts";

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const Metrics = v.object({
  dau: v.pipe(v.number(), v.description("Daily active users.")),
  wau: v.pipe(v.number(), v.description("Weekly active users.")),
  mrr: v.pipe(v.number(), v.description("Monthly recurring revenue in dollars.")),
});

export const Standup = v.object({
  id: v.string(),
  mode: v.pipe(v.picklist(["morning", "evening"]), v.description("The snapshot's mode (for mode=latest, whichever ran last).")),
  generatedAt: DateTime,
  briefing: v.string(),
  agentStatuses: v.array(v.object({ name: v.string(), status: v.string(), headline: v.string() })),
  metrics: Metrics,
  interventions: v.array(v.object({ title: v.string(), priority: Priority, agent: v.string() })),
});
type StandupBody = Omit<v.InferOutput<typeof Standup>, "id" | "mode" | "generatedAt">;

export const getStandupOp = defineOperation({
  id: "getStandup",
  summary: "Standup",
  description:
    "The crew's standup: a briefing across all domains, a per-agent roll-up, metrics (DAU, WAU, MRR) and the interventions that need a person, most urgent first. mode=morning is the 08:00 snapshot, evening the 18:00 one, latest (default) whichever is newer. Until the first snapshot of that mode has been made, the call ends in a not_found error saying so.",
  input: v.strictObject({
    mode: v.optional(v.picklist(["morning", "evening", "latest"], "Must be one of morning, evening, latest."), "latest"),
  }),
  output: Standup,
  rest: { method: "GET", path: "/api/mcp/standup", access: readAccess(), from: "query", tags: ["Reports"] },
  mcp: {
    name: "crew_standup",
    title: "Standup",
    access: readAccess(),
    annotations: readOnly,
    links: (out) => [{ uri: `crew://standup/${out.mode}`, name: `${out.mode} standup` }],
  },
  resource: { uri: "crew://standup/{mode}", name: "standup", title: "Standup (morning, evening or latest)", access: readAccess() },
  handler: async (ctx, input) => {
    const found = await latestStandup<StandupBody & { words?: unknown }>(ctx.db, ctx.principal.orgId, input.mode);
    if (!found) {
      const which = input.mode === "latest" ? "standup" : `${input.mode} standup`;
      const when = input.mode === "evening" ? "18:00" : input.mode === "morning" ? "08:00" : "08:00 and 18:00";
      throw new ApiError(
        404,
        "not_found",
        `No ${which} has been generated yet: the standup agent makes one at ${when} in the organization's time zone.`,
      );
    }
    const { words: _kept, ...body } = found.body;
    return { id: found.id, mode: found.mode, generatedAt: iso(found.generatedAt), ...body };
  },
});

export const Briefing = v.object({
  id: v.string(),
  briefing: v.string(),
  recommendations: v.pipe(v.array(v.string()), v.description("Open suggestions' titles, highest priority first.")),
  pendingActions: v.array(
    v.object({
      // Absent only in briefings stored before actions carried it.
      id: v.optional(v.pipe(v.string(), v.description("The action's id (act_…), for crew_update_action."))),
      title: v.string(),
      priority: Priority,
      source: v.string(),
    }),
  ),
  generatedAt: DateTime,
});

export const getBriefingOp = defineOperation({
  id: "getBriefing",
  summary: "Daily briefing",
  description:
    "The daily briefing of the person the credential belongs to (the API key's or connected app's user): full text, recommendations, and the actions awaiting approval or completion (critical first). Made daily at 07:30 and after important writes; composed on the spot on first use. Use it to answer 'what should I focus on today'.",
  input: v.strictObject({}),
  output: Briefing,
  rest: { method: "GET", path: "/api/mcp/briefing", access: readAccess("briefing"), from: "query", tags: ["Reports"] },
  mcp: {
    name: "crew_briefing",
    title: "Daily briefing",
    access: readAccess("briefing"),
    annotations: readOnly,
    links: () => [{ uri: "crew://briefing", name: "briefing" }],
  },
  resource: { uri: "crew://briefing", name: "briefing", title: "Daily briefing", access: readAccess("briefing") },
  handler: async (ctx) => {
    const { userId, orgId, name } = ctx.principal;
    const stored =
      (await latestBriefing<BriefingBody>(ctx.db, userId)) ??
      (await generateBriefing(ctx.db, { id: userId, orgId, name }, ctx.clock.now(), ctx.events.emit));
    const body = stored.body;
    return {
      id: stored.id,
      briefing: body.briefing,
      recommendations: body.recommendations,
      pendingActions: body.pendingActions as v.InferOutput<typeof Briefing>["pendingActions"],
      generatedAt: iso(stored.generatedAt),
    };
  },
});

export const getSuggestionsOp = defineOperation({
  id: "getSuggestions",
  summary: "Agent suggestions",
  description: `Open suggestions from the agents, critical first, then newest, each with the evidence it rests on and the other agents that raised it. Filter by agent (${SUGGESTION_AGENTS.join(", ")}), or list dismissed or accepted ones with status. Use it to find what the crew recommends doing next.`,
  input: v.strictObject({
    // Every agent id (src/docs/notes/rest-api.md): the seed's nine stay valid, and the agents that write suggestions besides them filter too.
    agent: v.optional(v.picklist(SUGGESTION_AGENTS, `Must be one of ${SUGGESTION_AGENTS.join(", ")}.`)),
    status: v.optional(
      v.pipe(v.picklist(["open", "dismissed", "accepted"], "Must be one of open, dismissed, accepted."), v.description("Default open.")),
    ),
  }),
  output: v.object({ suggestions: v.array(Suggestion) }),
  rest: { method: "GET", path: "/api/mcp/suggestions", access: readAccess(), from: "query", tags: ["Reports"] },
  mcp: { name: "crew_suggestions", title: "Agent suggestions", access: readAccess(), annotations: readOnly },
  handler: async (ctx, input) => {
    const rows = await listSuggestions(ctx.db, ctx.principal.orgId, { agent: input.agent, status: input.status ?? "open" });
    return { suggestions: rows.map(toSuggestionView) };
  },
});

export const CompanyProfile = v.object({
  archetype: v.pipe(v.string(), v.description('Company archetype; "unknown" before the dna agent first runs.')),
  strengths: v.array(v.string()),
  weaknesses: v.array(v.string()),
  patterns: v.array(v.object({ name: v.string(), insight: v.string() })),
  pipeline: v.array(v.object({ company: v.string(), stage: v.picklist(PIPELINE_STAGES), value: v.number() })),
  generatedAt: v.pipe(v.nullable(DateTime), v.description("When the profile was written; null before the first run.")),
});
type ProfileBody = Omit<v.InferOutput<typeof CompanyProfile>, "generatedAt">;

export const EMPTY_PROFILE: ProfileBody = { archetype: "unknown", strengths: [], weaknesses: [], patterns: [], pipeline: [] };

export const getCompanyProfileOp = defineOperation({
  id: "getCompanyProfile",
  summary: "Company profile (DNA)",
  description:
    "The organization's profile written by the dna agent: archetype, strengths, weaknesses, behavioural patterns across email, calendar and chat, and the B2B deal pipeline (stage and value in dollars). Before the first run: archetype unknown and empty lists.",
  input: v.strictObject({}),
  output: CompanyProfile,
  rest: { method: "GET", path: "/api/mcp/dna", access: readAccess(), from: "query", tags: ["Reports"] },
  mcp: {
    name: "crew_company_profile",
    title: "Company profile",
    access: readAccess(),
    annotations: readOnly,
    links: () => [{ uri: "crew://profile", name: "profile" }],
  },
  resource: { uri: "crew://profile", name: "profile", title: "Company profile", access: readAccess() },
  handler: async (ctx) => {
    const found = await latestProfile<ProfileBody>(ctx.db, ctx.principal.orgId);
    return found ? { ...EMPTY_PROFILE, ...found.body, generatedAt: iso(found.generatedAt) } : { ...EMPTY_PROFILE, generatedAt: null };
  },
});
