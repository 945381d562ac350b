/**
 * What `crew seed --demo` tells: a small B2B software company a few months after launch. Pure
 * data, every time relative to `now` ("ago" in milliseconds), so the same content reads as fresh
 * whenever it is loaded. src/demo/seed.ts turns it into rows.
 */

import type { ActionLane, ActionStatus, ActionType, Priority } from "../domain.ts";
import { DAY, HOUR, MINUTE } from "../lib/clock.ts";

export interface DemoRun {
  agent: string;
  /** How long before now the run finished. */
  ago: number;
  status: "ok" | "error";
  summary: string;
  error?: string;
  hasData?: boolean;
  metrics?: { dau: number; wau: number; mrr: number };
}

/**
 * Runs of the agents other than standup and briefing (those two run at their local schedule,
 * see demo.ts). Green: latest run ok within 24 h. Stale: latest run ok, over 24 h ago. Error:
 * latest run failed.
 */
export const DEMO_RUNS: DemoRun[] = [
  // dna: hourly profile refresh
  { agent: "dna", ago: 40 * MINUTE, status: "ok", summary: "Profile refreshed: 6 deals in the pipeline worth $147,000.", hasData: true },
  { agent: "dna", ago: 100 * MINUTE, status: "ok", summary: "Profile refreshed: no change in archetype.", hasData: true },
  // green
  { agent: "sales", ago: 3 * HOUR, status: "ok", summary: "Globex moved to proposal; 2 follow-ups due today.", hasData: true },
  { agent: "sales", ago: 27 * HOUR, status: "ok", summary: "Pipeline reviewed: 6 open deals, 1 stalled.", hasData: true },
  {
    agent: "revenue",
    ago: 5 * HOUR,
    status: "ok",
    summary: "Northwind renewal ($48,000) at risk; discount approval requested.",
    hasData: true,
  },
  { agent: "revenue", ago: 29 * HOUR, status: "ok", summary: "MRR up 2.1% month over month.", hasData: true },
  {
    agent: "product",
    ago: 7 * HOUR,
    status: "ok",
    summary: "4 customers hit the CSV import timeout; SSO is the top request.",
    hasData: true,
  },
  { agent: "growth", ago: 9 * HOUR, status: "ok", summary: "No new campaigns to analyse since yesterday.", hasData: false },
  { agent: "growth", ago: 33 * HOUR, status: "ok", summary: "Referral traffic converts 2.3× better than paid search.", hasData: true },
  // stale
  {
    agent: "content",
    ago: 30 * HOUR,
    status: "ok",
    summary: "Drafted 2 posts; the Umbrella Corp case study is waiting on a quote.",
    hasData: true,
  },
  { agent: "corpdev", ago: 52 * HOUR, status: "ok", summary: "Hooli is spinning off its analytics team; worth watching.", hasData: true },
  { agent: "research", ago: 74 * HOUR, status: "ok", summary: "Two competitors raised prices by 15–20% this month.", hasData: true },
  { agent: "research", ago: 8 * DAY, status: "ok", summary: "Market map updated with 3 new entrants.", hasData: true },
  // error: latest run failed, an earlier one succeeded
  { agent: "inbox", ago: 26 * HOUR, status: "ok", summary: "Triaged 48 emails: 3 need a reply today.", hasData: true },
  {
    agent: "inbox",
    ago: 2 * HOUR,
    status: "error",
    // As a run whose only mailbox is a revoked Google connection ends (src/docs/notes/connections.md).
    summary: "Could not read its source: Sam's Gmail: Google access was revoked: reconnect on /settings/connections (sam@acme.example).",
    error: "Sam's Gmail: Google access was revoked: reconnect on /settings/connections (sam@acme.example).",
  },
  { agent: "slack", ago: 5 * HOUR, status: "ok", summary: "Digest: 3 threads need a decision, 1 escalation in #support.", hasData: true },
  {
    agent: "slack",
    ago: 1 * HOUR,
    status: "error",
    summary: "Slack is rate-limiting the digest; retrying in an hour.",
    error: "Slack API 429 ratelimited",
  },
  { agent: "finance", ago: 2 * DAY, status: "ok", summary: "Runway: 19 months at the current burn.", hasData: true },
  {
    agent: "finance",
    ago: 6 * HOUR,
    status: "error",
    summary: "The Stripe export failed halfway; balances not updated.",
    error: "Stripe API timeout after 30 s",
  },
];

/** Pulse reports hourly; the newest run first, so the latest metrics are these. */
export function pulseRuns(hours = 12): DemoRun[] {
  return Array.from({ length: hours }, (_, k) => {
    const metrics = { dau: 1284 - 9 * k, wau: 4410 - 14 * k, mrr: 48250 - 25 * k };
    return {
      agent: "pulse",
      ago: 15 * MINUTE + k * HOUR,
      status: "ok" as const,
      summary: `DAU ${metrics.dau.toLocaleString("en-US")}, WAU ${metrics.wau.toLocaleString("en-US")}, MRR $${metrics.mrr.toLocaleString("en-US")}.`,
      hasData: true,
      metrics,
    };
  });
}

export const DEMO_PROFILE = {
  archetype: "Product-led B2B SaaS, seed stage",
  strengths: [
    "Fast product iteration: 14 releases in the last 30 days",
    "Warm enterprise pipeline from founder-led sales",
    "Low churn among teams above 20 seats",
  ],
  weaknesses: [
    "Slow follow-up on inbound leads (median 31 hours)",
    "Revenue concentrated in three accounts (52% of MRR)",
    "No dedicated owner for security reviews",
  ],
  patterns: [
    {
      name: "Deals stall at security review",
      insight: "3 of the last 5 enterprise deals waited over 2 weeks for a security questionnaire.",
    },
    { name: "Meeting-heavy Tuesdays", insight: "Tuesdays carry 40% of the week's meetings; deep work happens Thursday and Friday." },
    { name: "Late-night escalations", insight: "Most #support escalations arrive after 21:00 and wait until morning." },
  ],
  pipeline: [
    { company: "Northwind Traders", stage: "negotiation" as const, value: 48000 },
    { company: "Globex", stage: "proposal" as const, value: 36000 },
    { company: "Initech", stage: "qualified" as const, value: 24000 },
    { company: "Umbrella Corp", stage: "lead" as const, value: 12000 },
    { company: "Vandelay Industries", stage: "lead" as const, value: 9000 },
    { company: "Soylent Foods", stage: "closed" as const, value: 18000 },
  ],
};

/** Suggestions come from the agent's latest successful run. */
export const DEMO_SUGGESTIONS: { agent: string; priority: Priority; title: string; detail: string }[] = [
  {
    agent: "revenue",
    priority: "critical",
    title: "Approve the Northwind renewal discount before Friday",
    detail: "Northwind's CFO asked for 15% off a 2-year renewal; without an answer by Friday they start a competitor trial.",
  },
  {
    agent: "sales",
    priority: "high",
    title: "Send Globex the revised proposal within 24 hours",
    detail: "Their new VP of Engineering is our former champion; momentum is high this week.",
  },
  {
    agent: "product",
    priority: "high",
    title: "Fix the CSV import timeout",
    detail: "Four customers hit it this week; imports over 20 MB time out after 30 s.",
  },
  {
    agent: "product",
    priority: "medium",
    title: "Add SSO to the Enterprise plan",
    detail: "Asked for in 1 of 5 sales conversations this month.",
  },
  {
    agent: "pulse",
    priority: "medium",
    title: "Look into the 6% drop in weekly actives",
    detail: "The drop is concentrated in teams created in the last 30 days.",
  },
  {
    agent: "growth",
    priority: "medium",
    title: "Run a referral experiment with existing teams",
    detail: "Referral traffic converts 2.3× better than paid search at a tenth of the cost.",
  },
  { agent: "sales", priority: "medium", title: "Re-engage Vandelay Industries", detail: "No contact in 5 weeks after a positive demo." },
  {
    agent: "content",
    priority: "low",
    title: "Turn the Umbrella Corp rollout into a case study",
    detail: "Their team cut reporting time by 60%; a quote from Tom Alvarez would anchor it.",
  },
  {
    agent: "corpdev",
    priority: "low",
    title: "Track Hooli's analytics spin-off",
    detail: "A possible acqui-hire or partnership once the spin-off closes.",
  },
];

export interface DemoContact {
  key: string;
  name: string;
  email: string | null;
  company: string;
  role: string;
  relationship: string;
  notes: string;
  ago: number;
}

export const DEMO_CONTACTS: DemoContact[] = [
  {
    key: "dana",
    name: "Dana Whitfield",
    email: "dana.whitfield@northwind.example",
    company: "Northwind Traders",
    role: "CFO",
    relationship: "key",
    notes: "Decides the renewal; prefers short emails with numbers.",
    ago: 40 * DAY,
  },
  {
    key: "marcus",
    name: "Marcus Lee",
    email: "marcus.lee@globex.example",
    company: "Globex",
    role: "VP of Engineering",
    relationship: "active",
    notes: "Former champion, promoted last week.",
    ago: 25 * DAY,
  },
  {
    key: "priya",
    name: "Priya Raman",
    email: "priya.raman@initech.example",
    company: "Initech",
    role: "Head of Security",
    relationship: "warm",
    notes: "Sent the security questionnaire.",
    ago: 12 * DAY,
  },
  {
    key: "tom",
    name: "Tom Alvarez",
    email: "tom@umbrella.example",
    company: "Umbrella Corp",
    role: "Founder",
    relationship: "warm",
    notes: "Happy customer; open to a case study.",
    ago: 60 * DAY,
  },
  {
    key: "elena",
    name: "Elena Petrova",
    email: "elena@foundry-ventures.example",
    company: "Foundry Ventures",
    role: "Partner",
    relationship: "key",
    notes: "Lead investor; board meeting on the 14th.",
    ago: 90 * DAY,
  },
  {
    key: "sam",
    name: "Sam Okafor",
    email: null,
    company: "Hooli",
    role: "Analytics lead",
    relationship: "cold",
    notes: "Met at a conference; leads the team Hooli is spinning off.",
    ago: 52 * HOUR,
  },
];

export interface DemoAction {
  title: string;
  description: string;
  priority: Priority;
  category: string;
  status: ActionStatus;
  source: string;
  type: ActionType;
  lane: ActionLane;
  contact?: string;
  dealId?: string;
  ago: number;
}

export const DEMO_ACTIONS: DemoAction[] = [
  {
    title: "Approve 15% renewal discount for Northwind Traders",
    description: "Two-year renewal at $40,800 instead of $48,000; Dana Whitfield needs an answer by Friday.",
    priority: "critical",
    category: "sales",
    status: "pending",
    source: "revenue",
    type: "approval",
    lane: "today",
    contact: "dana",
    dealId: "deal_northwind_renewal",
    ago: 5 * HOUR,
  },
  {
    title: "Answer Umbrella Corp's outage escalation",
    description:
      "Their CTO wrote that CSV exports have failed since the last release and asked for a call today; found in the last mail the Inbox agent read.",
    priority: "critical",
    category: "ops",
    status: "pending",
    source: "inbox",
    type: "task",
    lane: "today",
    // From the inbox's last good run: the latest one could not read the mail (the revoked Google access).
    ago: 26 * HOUR,
  },
  {
    title: "Send revised proposal to Globex",
    description: "Include the volume tier Marcus asked about.",
    priority: "high",
    category: "sales",
    status: "in_progress",
    source: "sales",
    type: "follow_up",
    lane: "today",
    contact: "marcus",
    dealId: "deal_globex_2027",
    ago: 3 * HOUR,
  },
  {
    title: "Ship the CSV import fix",
    description: "Stream large files instead of buffering them.",
    priority: "high",
    category: "product",
    status: "approved",
    source: "product",
    type: "approval",
    lane: "today",
    ago: 7 * HOUR,
  },
  {
    title: "Answer Initech's security questionnaire",
    description: "48 questions; most answers are in last quarter's SOC 2 notes.",
    priority: "medium",
    category: "sales",
    status: "pending",
    source: "inbox",
    type: "follow_up",
    lane: "this_week",
    contact: "priya",
    dealId: "deal_initech_pilot",
    ago: 20 * HOUR,
  },
  {
    title: "Launch the referral experiment",
    description: "One free month for both sides, limited to teams above 5 seats.",
    priority: "medium",
    category: "growth",
    status: "approved",
    source: "growth",
    type: "approval",
    lane: "this_week",
    ago: 33 * HOUR,
  },
  {
    title: "Prepare board meeting deck",
    description: "Metrics, pipeline, hiring plan; the meeting moved to the 14th.",
    priority: "medium",
    category: "fundraising",
    status: "pending",
    source: "mcp",
    type: "task",
    lane: "this_week",
    contact: "elena",
    ago: 2 * HOUR,
  },
  {
    title: "Update the pricing page",
    description: "Reflect the new Enterprise tier with SSO.",
    priority: "medium",
    category: "product",
    status: "done",
    source: "api",
    type: "task",
    lane: "this_week",
    ago: 4 * DAY,
  },
  {
    title: "Ask Tom Alvarez for a case-study quote",
    description: "Two sentences on the reporting time saved.",
    priority: "low",
    category: "growth",
    status: "pending",
    source: "content",
    type: "follow_up",
    lane: "later",
    contact: "tom",
    ago: 30 * HOUR,
  },
  {
    title: "Clean up duplicate CRM contacts",
    description: "About 40 duplicates from the last import.",
    priority: "low",
    category: "ops",
    status: "in_progress",
    source: "api",
    type: "task",
    lane: "later",
    ago: 3 * DAY,
  },
  {
    title: "Evaluate acquiring Hooli's analytics team",
    description: "Parked until the spin-off closes.",
    priority: "low",
    category: "ops",
    status: "dismissed",
    source: "corpdev",
    type: "approval",
    lane: "later",
    ago: 52 * HOUR,
  },
];

export const DEMO_HANDOFFS: {
  from: string;
  to: string;
  title: string;
  context: string;
  priority: Priority;
  type: string;
  status: "queued" | "claimed" | "done" | "failed";
  ago: number;
}[] = [
  {
    from: "pulse",
    to: "growth",
    title: "Look into the weekly actives dip",
    context: "Down 6% week over week, mostly new teams.",
    priority: "high",
    type: "research",
    status: "queued",
    ago: 3 * HOUR,
  },
  {
    from: "sales",
    to: "bdr",
    title: "Research Globex's new VP of Engineering",
    context: "Marcus Lee was promoted; map his new team.",
    priority: "high",
    type: "research",
    status: "queued",
    ago: 6 * HOUR,
  },
  {
    from: "manual",
    to: "content",
    title: "Draft the Umbrella Corp case study",
    context: "Use the rollout numbers from the product agent.",
    priority: "medium",
    type: "draft",
    status: "queued",
    ago: 4 * HOUR,
  },
  {
    from: "revenue",
    to: "finance",
    title: "Model the Northwind discount's effect on runway",
    context: "15% off a 2-year renewal.",
    priority: "critical",
    type: "review",
    status: "failed",
    ago: 5 * HOUR,
  },
  {
    from: "inbox",
    to: "sales",
    title: "Initech asked for a security questionnaire",
    context: "Attached to Priya Raman's email.",
    priority: "medium",
    type: "action",
    status: "done",
    ago: 20 * HOUR,
  },
  {
    from: "research",
    to: "product",
    title: "Competitor pricing changes",
    context: "Two competitors raised prices by 15–20%.",
    priority: "low",
    type: "research",
    status: "done",
    ago: 74 * HOUR,
  },
];

export const DEMO_INSIGHTS: {
  agent: string;
  type: string;
  impact: "low" | "medium" | "high";
  title: string;
  detail: string;
  ago: number;
}[] = [
  {
    agent: "pulse",
    type: "alert",
    impact: "high",
    title: "Weekly actives down 6% week over week",
    detail: "Concentrated in teams created in the last 30 days.",
    ago: 3 * HOUR,
  },
  {
    agent: "revenue",
    type: "action",
    impact: "high",
    title: "Northwind renewal ($48,000) at risk without a discount",
    detail: "Their CFO mentioned a competitor trial.",
    ago: 5 * HOUR,
  },
  {
    agent: "sales",
    type: "connection",
    impact: "high",
    title: "Globex's champion is now VP of Engineering",
    detail: "Marcus Lee can now sign off on the expansion.",
    ago: 6 * HOUR,
  },
  {
    agent: "manual",
    type: "insight",
    impact: "medium",
    title: "Board meeting moved to the 14th",
    detail: "Elena Petrova asked for the deck a week ahead.",
    ago: 2 * HOUR,
  },
  {
    agent: "growth",
    type: "learning",
    impact: "low",
    title: "Referral traffic converts 2.3× better than paid search",
    detail: "Over the last 90 days.",
    ago: 9 * HOUR,
  },
  {
    agent: "inbox",
    type: "learning",
    impact: "medium",
    title: "1 in 5 sales emails asks about SSO",
    detail: "Up from 1 in 12 last quarter.",
    ago: 26 * HOUR,
  },
  {
    agent: "research",
    type: "insight",
    impact: "medium",
    title: "Two competitors raised prices this month",
    detail: "By 15–20%, both on their team plans.",
    ago: 74 * HOUR,
  },
];

export const DEMO_ALERTS: { service: string; severity: "critical" | "warning"; message: string; agent: string; ago: number }[] = [
  {
    service: "google",
    severity: "critical",
    message: "Google access was revoked: reconnect on /settings/connections (sam@acme.example).",
    agent: "inbox",
    ago: 2 * HOUR,
  },
  {
    service: "slack",
    severity: "warning",
    message: "Slack is rate-limiting the Slack Digest agent; it retries hourly. Nothing to do unless this lasts a day.",
    agent: "slack",
    ago: 1 * HOUR,
  },
];
