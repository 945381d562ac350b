/**
 * The shared words of Crew: plans and what they include (src/docs/notes/access.md#plans), key and OAuth scopes (access.md, oauth.md),
 * priorities and their rank, the agent catalog (rest-api.md, agents-runtime.md), action enums and the default lane, and
 * the registered OAuth client's metadata. Pure data and functions at the bottom of the import
 * graph: every layer, the store included, may import this file; it imports nothing of Crew.
 */

// --- Plans and key scopes (src/docs/notes/access.md#plans). A plan grants a tier: none, read, or write. The plan is read
// on every request, so a downgrade caps existing keys and tokens at once.
export const PLANS = ["lite", "pro", "operator", "team_starter", "team_growth", "team_enterprise"] as const;
export type Plan = (typeof PLANS)[number];

export const KEY_SCOPES = ["admin", "read", "briefing", "agents"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type Tier = "none" | "read" | "write";

const tierOf: Record<Plan, Tier> = {
  lite: "none",
  team_starter: "none",
  pro: "read",
  team_growth: "read",
  operator: "write",
  team_enterprise: "write",
};

const rank: Record<Tier, number> = { none: 0, read: 1, write: 2 };

export function planTier(plan: Plan): Tier {
  return tierOf[plan];
}

export function planIncludes(plan: Plan, needed: Exclude<Tier, "none">): boolean {
  return rank[tierOf[plan]] >= rank[needed];
}

/** Each tier in one sentence, with its plans: the Users page, the getting-started card and access.md say the same. */
export const TIER_SENTENCES: Record<Tier, string> = {
  none: "Lite and Team starter: the web app only, no API keys and no MCP (Claude and other clients connect but see no tools).",
  read: "Pro and Team growth: also read over the API and MCP (keys with read, briefing, agents).",
  write: "Operator and Team enterprise: also the writes over the API and MCP (the action queue, contacts, handoffs, the feed, agent runs).",
};

/** The cheapest plan that includes a tier: what a 403 plan_upgrade_required names. */
export function cheapestPlanFor(needed: Exclude<Tier, "none">): Plan {
  return needed === "read" ? "pro" : "operator";
}

/** Key scopes a plan lets its user put on a key (src/docs/notes/access.md#plans table). */
export function allowedKeyScopes(plan: Plan): KeyScope[] {
  switch (tierOf[plan]) {
    case "none":
      return [];
    case "read":
      return ["read", "briefing", "agents"];
    case "write":
      return ["admin", "read", "briefing", "agents"];
  }
}

// --- Roles in an organization (src/docs/notes/access.md#roles): owners manage it; members read everything and act on its work.
export const ROLES = ["owner", "member"] as const;
export type Role = (typeof ROLES)[number];

// --- OAuth scopes (src/docs/notes/oauth.md, RFC 6749 §3.3).
export const OAUTH_SCOPES = ["crew:read", "crew:write", "crew:admin"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export const isOAuthScope = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s);

/** Known scopes in canonical order, without duplicates. */
export function canonicalScopes(scopes: Iterable<OAuthScope>): OAuthScope[] {
  const set = new Set(scopes);
  return OAUTH_SCOPES.filter((s) => set.has(s));
}

/** The space-separated wire form. */
export const scopeString = (scopes: readonly OAuthScope[]) => canonicalScopes(scopes).join(" ");

/** Scopes stored in the database: space-separated; unknown words dropped. */
export const scopesFromString = (value: string): OAuthScope[] => canonicalScopes(value.split(/\s+/).filter(isOAuthScope));

// --- Priorities (src/docs/notes/rest-api.md): the rank orders the action queue (critical first).
export const PRIORITIES = ["critical", "high", "medium", "low"] as const;
export type Priority = (typeof PRIORITIES)[number];
export const priorityRank = (p: Priority): number => PRIORITIES.indexOf(p);

// --- Actions (src/docs/notes/rest-api.md).
/** `held`: written by a run from outside input that shows signs of an attack; waits for an owner (src/docs/notes/prompt-injection.md). */
export const ACTION_STATUSES = ["pending", "approved", "in_progress", "done", "dismissed", "held"] as const;
export const ACTION_TYPES = ["task", "approval", "follow_up"] as const;
export const ACTION_LANES = ["today", "this_week", "later"] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];
export type ActionType = (typeof ACTION_TYPES)[number];
export type ActionLane = (typeof ACTION_LANES)[number];

/** The lane an action gets when none is given: today (critical, high), this_week (medium), later (low). */
export const defaultLane = (p: Priority): ActionLane =>
  p === "critical" || p === "high" ? "today" : p === "medium" ? "this_week" : "later";

// --- The agent catalog: the fixed crew of 17 agents (src/docs/notes/rest-api.md) and their default schedules (src/docs/notes/agents-runtime.md).
/** Language model providers (src/docs/notes/model.md). */
export const MODEL_PROVIDERS = ["openai-compatible", "openai", "anthropic"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export const AGENT_CATEGORIES = ["ops", "intelligence", "growth", "revenue", "product"] as const;
export type AgentCategory = (typeof AGENT_CATEGORIES)[number];

export interface AgentDefinition {
  id: string;
  name: string;
  category: AgentCategory;
  /** Cron expression (minute hour day month weekday) in the organization's time zone, or null. */
  schedule: string | null;
}

export const AGENTS: readonly AgentDefinition[] = [
  { id: "standup", name: "Standup", category: "ops", schedule: "0 8,18 * * *" },
  { id: "briefing", name: "Briefing", category: "ops", schedule: "30 7 * * *" },
  { id: "inbox", name: "Inbox", category: "ops", schedule: "10 * * * *" },
  { id: "calendar", name: "Calendar", category: "ops", schedule: "0 7 * * 1-5" },
  { id: "slack", name: "Slack Digest", category: "ops", schedule: "20 * * * *" },
  { id: "compliance", name: "Compliance", category: "ops", schedule: "0 6 * * 1" },
  { id: "pulse", name: "Pulse", category: "intelligence", schedule: "0 * * * *" },
  { id: "dna", name: "Company DNA", category: "intelligence", schedule: "0 * * * *" },
  { id: "corpdev", name: "Corp Dev", category: "intelligence", schedule: "30 6 * * 1" },
  { id: "research", name: "Market Research", category: "intelligence", schedule: "15 6 * * *" },
  { id: "growth", name: "Growth", category: "growth", schedule: "0 9 * * 1" },
  { id: "content", name: "Content", category: "growth", schedule: "45 6 * * 1,4" },
  { id: "bdr", name: "BDR", category: "growth", schedule: "0 9 * * 1-5" },
  { id: "revenue", name: "Revenue", category: "revenue", schedule: "0 17 * * 5" },
  { id: "sales", name: "Sales", category: "revenue", schedule: "30 8 * * 1-5" },
  { id: "finance", name: "Finance", category: "revenue", schedule: "0 9 * * 1" },
  { id: "product", name: "Product", category: "product", schedule: "0 10 * * 1" },
];

export const AGENT_IDS = AGENTS.map((a) => a.id) as [string, ...string[]];

/**
 * The values GET /api/mcp/suggestions?agent= (crew_suggestions, the web's chips) accepts: every agent
 * whose catalog entry writes suggestions (src/agents/jobs.ts; test/agents/suggestion-agents.test.ts
 * keeps the two in step), after the seed's nine, which stay valid (pulse among them, though it
 * writes metrics: its filter is simply empty).
 */
export const SUGGESTION_AGENTS = [
  "product",
  "growth",
  "revenue",
  "content",
  "corpdev",
  "sales",
  "bdr",
  "compliance",
  "pulse",
  "inbox",
  "calendar",
  "slack",
  "research",
  "finance",
] as const;

export function isAgentId(id: string): boolean {
  return AGENTS.some((a) => a.id === id);
}

// --- A registered OAuth client (RFC 7591 §2): what is stored and echoed.
export const AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** The metadata Crew stores and echoes (without client_id, secret and timestamps). */
export interface ClientMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: AuthMethod;
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  scope?: string;
  contacts?: string[];
  software_id?: string;
  software_version?: string;
}

// --- Domain events: raised by a write after it commits (store/commit.ts); the agents runtime
// regenerates from them and the webhook outbox records their webhook payloads.
export type DomainEvent =
  | {
      type: "action.created";
      orgId: string;
      actionId: string;
      title: string;
      priority: string;
      status: string;
      /** Who added it: api, mcp, web, or the agent's id. */
      source: string;
      contactId: string | null;
      dealId: string | null;
      at: number;
    }
  | { type: "handoff.created"; orgId: string; handoffId: string; to: string; priority: string; at: number }
  | { type: "insight.created"; orgId: string; insightId: string; impact: string; at: number }
  | { type: "budget.warning"; orgId: string; agent: string | null; used: number; limit: number; at: number }
  | { type: "standup.ready"; orgId: string; standupId: string; at: number }
  | { type: "briefing.completed"; orgId: string; userId: string; briefingId: string; summary: string; at: number };

// --- Webhook events (src/docs/notes/webhooks.md): what a subscription can ask for, and the payloads sent.
export const WEBHOOK_EVENTS = ["action.created", "briefing.completed", "standup.ready", "budget.warning"] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

export type WebhookEvent =
  | { event: "briefing.completed"; userId: string; briefingId: string; timestamp: string; summary?: string }
  | {
      event: "action.created";
      actionId: string;
      title: string;
      priority: string;
      status: string;
      source: string;
      /** The action on the web app, added at delivery (src/webhooks/deliver.ts): the store does not know the public address. */
      url?: string;
      timestamp: string;
      contactId?: string;
      dealId?: string;
    }
  | { event: "standup.ready"; standupId: string; timestamp: string }
  | { event: "budget.warning"; organizationId: string; agent?: string; used: number; limit: number; timestamp: string };

/** The webhook payload of a domain event, when it has one (contactId and dealId only when set). */
export function webhookEventOf(e: DomainEvent): WebhookEvent | null {
  switch (e.type) {
    case "action.created":
      return {
        event: "action.created",
        actionId: e.actionId,
        title: e.title,
        priority: e.priority,
        status: e.status,
        source: e.source,
        timestamp: new Date(e.at).toISOString(),
        ...(e.contactId ? { contactId: e.contactId } : {}),
        ...(e.dealId ? { dealId: e.dealId } : {}),
      };
    case "budget.warning":
      return {
        event: "budget.warning",
        organizationId: e.orgId,
        ...(e.agent ? { agent: e.agent } : {}),
        used: e.used,
        limit: e.limit,
        timestamp: new Date(e.at).toISOString(),
      };
    case "standup.ready":
      return { event: "standup.ready", standupId: e.standupId, timestamp: new Date(e.at).toISOString() };
    case "briefing.completed":
      return {
        event: "briefing.completed",
        userId: e.userId,
        briefingId: e.briefingId,
        timestamp: new Date(e.at).toISOString(),
        summary: e.summary,
      };
    default:
      return null;
  }
}

/** What a record a run wrote rests on (src/docs/notes/model.md). */
export const EVIDENCE_KINDS = [
  "mail",
  "feed_item",
  "calendar_event",
  "slack_message",
  // A JSON payload posted to an agent's trigger (src/docs/notes/connections.md): an external input.
  "event",
  "contact",
  "action",
  "insight",
  "handoff",
  "deal",
  "metric",
  "suggestion",
] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/**
 * Whether an input comes from the organization's own people and data (`internal`) or from outside
 * (`external`: other senders, feeds, invitations, chat from outside, triggers, and anything a run
 * wrote from those), src/docs/notes/prompt-injection.md.
 */
export const TRUST_LEVELS = ["internal", "external"] as const;
export type Trust = (typeof TRUST_LEVELS)[number];
/** A record's provenance: `internal` when every evidence item is internal, else `external`. */
export type Provenance = Trust;

/** One input a record rests on: `ref` identifies it (a Crew id, a Message-ID, a feed item's GUID or link…). */
export interface Evidence {
  kind: EvidenceKind;
  ref: string;
  title: string;
  url?: string;
  excerpt?: string;
  /** Where the input came from; absent on evidence stored before provenance existed (read as internal). */
  trust?: Trust;
}

/** Suggestion lifecycle (src/docs/notes/model.md). */
export const SUGGESTION_STATUSES = ["open", "accepted", "dismissed", "superseded"] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

// --- Who is acting: a user of an organization and the credential the request came by (src/docs/notes/access.md).
export type Credential =
  | { type: "api_key"; id: string; scopes: readonly KeyScope[] }
  | { type: "oauth"; id: string; grantId: string; clientId: string; scopes: readonly OAuthScope[] }
  | { type: "session"; id: string }
  /** The `crew` command line on the server (src/cli/principal.ts): an operator acting as the organization's owner. */
  | { type: "cli"; id: "cli" };

export interface Principal {
  userId: string;
  orgId: string;
  email: string;
  name: string;
  plan: Plan;
  credential: Credential;
  /** The user's role in the organization (src/docs/notes/web-app.md), read with the credential on every request. */
  role: Role;
}

// --- Words of the agents' reports and writes, shared by the operations' schemas and the model output
// an agent run is checked against (src/docs/notes/model.md).
/** How well the organization knows a contact. */
export const RELATIONSHIPS = ["contact", "active", "warm", "cold", "key"] as const;
/** Kinds of feed insight. */
export const INSIGHT_TYPES = ["insight", "connection", "learning", "alert", "action"] as const;
/** Stages of the sales pipeline in the weekly metrics report. */
export const PIPELINE_STAGES = ["lead", "qualified", "proposal", "negotiation", "closed"] as const;

// --- A person's mail and calendar account connected by OAuth (src/docs/notes/connections.md).
export const CONNECTION_PROVIDERS = ["google", "microsoft"] as const;
export type ConnectionProvider = (typeof CONNECTION_PROVIDERS)[number];
