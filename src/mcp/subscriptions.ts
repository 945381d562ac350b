/**
 * `subscriptions/listen` (MCP 2026-07-28) for `crew://briefing`, `crew://standup/{mode}` and
 * `crew://agents`, and tool-list changes when the user's plan changes (read each poll). The SDK's listen router owns the stream (acknowledgement, filtering, keep-alive
 * comments every 15 s, teardown); this file sources its events, per organization:
 *
 * - Each stream gets a bus of its own caller (`busFor`, handed to the SDK entry that serves that
 *   one stream, see routes.ts), so an event reaches only the streams of the organization it is
 *   about. Open streams are capped per user in the database (stream-slots.ts). No
 *   AsyncLocalStorage: once used, Node tracks every promise of the process, a cost every request
 *   would pay.
 * - A stream lasts only as long as its credential: each poll asks whether the key or token of
 *   every open stream still admits it, and ends the streams of one revoked or expired since.
 * - Regenerations are noticed through the store's `agents_version` counter, which every write to
 *   agents or agent_runs bumps in its own transaction, whichever process made it (schema.sql): while
 *   any stream is open, it is read every POLL_MS, and when it moved each watched organization's
 *   runs are compared, so a run finished by another server process on the same database is
 *   announced within a few seconds. Nothing is polled while no stream is open.
 */
import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { bearerStillActive } from "../auth/bearer.ts";
import type { Credential, Principal } from "../domain.ts";
import type { Clock } from "../lib/clock.ts";
import type { Db } from "../store/db.ts";
import { agentsVersion } from "../store/runs/agents.ts";

export { MAX_STREAMS_PER_USER } from "./stream-slots.ts";
export const POLL_MS = 1_000;

/** The resources a regeneration changes. */
export const WATCHED_URIS = [
  "crew://briefing",
  "crew://standup/morning",
  "crew://standup/evening",
  "crew://standup/latest",
  "crew://agents",
];

interface Listener {
  deliver: (event: ServerEvent) => void;
  orgId: string;
  userId: string;
  credential: Credential;
  /** Ends the stream (its credential no longer admits it). */
  end: () => void;
}

/** What the owner of one stream is told: `ended` once it stops listening; `end` ends it. */
export interface StreamHooks {
  ended?: () => void;
  end?: () => void;
}

export class OrgSubscriptions {
  private readonly listeners = new Set<Listener>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private version: string | undefined;
  private readonly fingerprints = new Map<string, string>();
  /** The plan each watched user had at the last poll. */
  private readonly plans = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly onerror: (error: unknown) => void,
  ) {}

  publishTo(orgId: string, event: ServerEvent): void {
    for (const l of this.listeners) if (l.orgId === orgId) l.deliver(event);
  }

  /**
   * The bus of one stream opened by `principal`; `ended` runs once when that stream stops listening.
   * Nothing in Crew publishes through it: events come from the polls below.
   */
  busFor(principal: Principal, { ended = () => {}, end = () => {} }: StreamHooks = {}): ServerEventBus {
    return {
      publish: () => {},
      subscribe: (deliver) => {
        const listener = { deliver, orgId: principal.orgId, userId: principal.userId, credential: principal.credential, end };
        this.listeners.add(listener);
        if (!this.plans.has(principal.userId)) this.plans.set(principal.userId, principal.plan);
        void this.watch(principal.orgId).catch(this.onerror);
        return () => {
          if (!this.listeners.delete(listener)) return;
          if (this.listeners.size === 0) this.stop();
          ended();
        };
      },
    };
  }

  close(): void {
    this.stop();
    this.listeners.clear();
  }

  private async watch(orgId: string): Promise<void> {
    if (!this.fingerprints.has(orgId)) this.fingerprints.set(orgId, await this.fingerprint(orgId));
    if (this.timer) return;
    this.version = await this.readVersion();
    this.timer = setInterval(() => void this.poll().catch(this.onerror), POLL_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.fingerprints.clear();
    this.plans.clear();
  }

  private async poll(): Promise<void> {
    await this.pollCredentials();
    await this.pollPlans();
    const version = await this.readVersion();
    if (version === this.version) return;
    this.version = version;
    const orgs = new Set([...this.listeners].map((l) => l.orgId));
    for (const orgId of orgs) {
      const now = await this.fingerprint(orgId);
      if (this.fingerprints.get(orgId) === now) continue;
      this.fingerprints.set(orgId, now);
      for (const uri of WATCHED_URIS) this.publishTo(orgId, { kind: "resource_updated", uri });
    }
  }

  /** Streams whose key or token was revoked, or expired, since they opened end now. */
  private async pollCredentials(): Promise<void> {
    const byCredential = new Map<string, Listener[]>();
    for (const l of this.listeners) {
      const key = `${l.credential.type}:${l.credential.id}`;
      byCredential.set(key, [...(byCredential.get(key) ?? []), l]);
    }
    const now = this.clock.now();
    for (const listeners of byCredential.values()) {
      const first = listeners[0];
      if (!first || (await bearerStillActive(this.db, first.credential, now))) continue;
      for (const l of listeners) l.end();
    }
  }

  /** A plan change changes the tools a user may call: their streams are told the list changed. */
  private async pollPlans(): Promise<void> {
    const users = [...new Set([...this.listeners].map((l) => l.userId))];
    if (users.length === 0) return;
    const rows = await this.db.all<{ id: string; plan: string }>(
      `SELECT id, plan FROM users WHERE id IN (${users.map(() => "?").join(", ")})`,
      users,
    );
    for (const { id, plan } of rows) {
      const before = this.plans.get(id);
      this.plans.set(id, plan);
      if (before === undefined || before === plan) continue;
      for (const l of this.listeners) if (l.userId === id) l.deliver({ kind: "tools_list_changed" });
    }
  }

  private async readVersion(): Promise<string | undefined> {
    return agentsVersion(this.db);
  }

  /** What a regeneration changes in one organization: its runs (count, latest finish). */
  private async fingerprint(orgId: string): Promise<string> {
    const row = await this.db.one<{ n: number; last: number | null }>(
      "SELECT COUNT(*) AS n, MAX(finished_at) AS last FROM agent_runs WHERE org_id = ?",
      [orgId],
    );
    return `${row?.n ?? 0}:${row?.last ?? ""}`;
  }
}
