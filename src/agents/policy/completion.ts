/**
 * What a run reports when it completes (src/docs/notes/agents-runtime.md): the body of
 * POST /api/agents/{id}/runs/{runId}/complete, and what a model-backed run's answer becomes. The
 * write policy (write-policy.ts) fills in what Crew decides itself: each record's provenance and
 * whether it is held for review, and a run's notes on contacts.
 */
import type { ActionLane, Evidence, Priority, Provenance } from "../../domain.ts";
import type { ProfileBody } from "../compose-profile.ts";

/** What the write policy decided about one record (absent before it ran). */
export interface Vetted {
  provenance?: Provenance;
  /** Why the record is held for review; absent when it is not held. */
  heldReason?: string;
}

export type Deal = ProfileBody["pipeline"][number] & { evidence?: Evidence[] };

export interface Completion {
  status: "ok" | "error";
  summary: string;
  error?: string;
  output?: unknown;
  suggestions?: ({ title: string; detail: string; priority: Priority; evidence?: Evidence[]; sameAs?: string } & Vetted)[];
  metrics?: { dau: number; wau: number; mrr: number };
  /** Profile fields; `pipeline` holds deal changes, deal by deal (a deal is never removed, src/docs/notes/prompt-injection.md#caps). */
  profile?: Partial<Omit<ProfileBody, "pipeline">> & { pipeline?: Deal[] };
  actions?: ({
    title: string;
    description?: string;
    priority: Priority;
    category?: string;
    type: "task" | "approval" | "follow_up";
    lane?: ActionLane;
    contactId?: string;
    dealId?: string;
    evidence?: Evidence[];
    sameAs?: string;
  } & Vetted)[];
  alerts?: { service: string; severity: "critical" | "warning"; message: string }[];
  handoffs?: { id: string; status: "done" | "failed" }[];
  /** Insights the run posts to the shared feed (agent = this agent). */
  insights?: ({ title: string; detail?: string; type: string; impact: "low" | "medium" | "high"; evidence?: Evidence[] } & Vetted)[];
  /** Work the run hands to other agents (from = this agent). */
  newHandoffs?: ({ to: string; title: string; context?: string; priority: Priority; type?: string; evidence?: Evidence[] } & Vetted)[];
  /** Contacts the run creates or updates (matched as POST /api/mcp/contacts does), e.g. inbox's correspondents. */
  contacts?: { name: string; email?: string; company?: string; role?: string; relationship?: string; notes?: string }[];
  /** A run's notes on contacts, for their history ("noted by {agent}"), filled in by the write policy from `contacts[].notes`. */
  contactNotes?: { email?: string; name: string; note: string; evidence: Evidence[] }[];
}
