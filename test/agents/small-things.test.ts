/**
 * Small things that misled (issue 33, item 16): the briefing greets by the person's time of day,
 * the briefing run never says "for 0 members", pulse's summary names no API path, one cause is one
 * line of the standup's interventions, and `crew user list` shows each user's role.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { greetingAt } from "../../src/agents/compose-briefing.ts";
import { composeStandupBody } from "../../src/agents/compose-standup.ts";
import { runBuiltIn } from "../../src/agents/runners.ts";
import type { AgentRunSummary } from "../../src/store/runs/agents.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("words that fit the moment", () => {
  it("greets by the person's wall clock", () => {
    const at = Date.UTC(2026, 11, 1, 21, 17);
    expect(greetingAt(at, "UTC")).toEqual({ greeting: "Good evening", date: "2026-12-01" });
    expect(greetingAt(at, "Asia/Tokyo")).toEqual({ greeting: "Good morning", date: "2026-12-02" });
    expect(greetingAt(at, "America/Los_Angeles")).toEqual({ greeting: "Good afternoon", date: "2026-12-01" });
  });

  it("the briefing run says whom it briefed, never '0 members'; pulse names no API path", async () => {
    await s.db.run("DELETE FROM users");
    expect((await runBuiltIn(s.deps, s.org, "briefing")).summary).toBe("Nobody to brief yet: the organization has no users.");
    await s.createUser("operator", "one@example.com");
    await s.createUser("operator", "two@example.com");
    expect((await runBuiltIn(s.deps, s.org, "briefing")).summary).toBe("Composed the daily briefing for 2 people.");
    const pulse = await runBuiltIn(s.deps, s.org, "pulse");
    expect(pulse.summary).toMatch(/^No metrics reported yet/);
    expect(pulse.summary).not.toContain("/api/");
  });

  it("shows one cause once among the interventions", () => {
    const at = Date.UTC(2026, 11, 1, 8);
    const inbox: AgentRunSummary = {
      id: "inbox",
      name: "Inbox",
      category: "ops",
      schedule: null,
      lastStatus: "error",
      lastFinishedAt: at - 60_000,
      lastSummary: "Could not read its source: The mail server refused the user name and password.",
      lastError: "rejected",
      okFinishedAt: null,
      okSummary: null,
      okHasData: false,
      pausedReason: null,
    };
    const body = composeStandupBody({
      mode: "morning",
      at,
      agents: [inbox],
      metrics: null,
      openActions: [],
      criticalAlerts: [{ message: "imap: The mail server refused the user name and password.", agent: "inbox", flaggedAt: at - 60_000 }],
    });
    expect(body.interventions).toEqual([
      { title: "imap: The mail server refused the user name and password.", priority: "critical", agent: "inbox" },
    ]);
  });

  it("a person's revoked connection, which no agent raised, is one line, not the alert and the failed run", () => {
    const at = Date.UTC(2026, 11, 1, 8);
    const message = "Google access was revoked: reconnect on /settings/connections (sam@acme.example).";
    const inbox: AgentRunSummary = {
      id: "inbox",
      name: "Inbox",
      category: "ops",
      schedule: null,
      lastStatus: "error",
      lastFinishedAt: at - 60_000,
      lastSummary: `Could not read its source: Sam's Gmail: ${message}`,
      lastError: `Sam's Gmail: ${message}`,
      okFinishedAt: null,
      okSummary: null,
      okHasData: false,
      pausedReason: null,
    };
    const finance: AgentRunSummary = {
      ...inbox,
      id: "finance",
      name: "Finance",
      lastSummary: "The Stripe export failed.",
      lastError: "timeout",
    };
    const body = composeStandupBody({
      mode: "morning",
      at,
      agents: [inbox, finance],
      metrics: null,
      openActions: [],
      // A connection's alert belongs to the person, so its agent is the service's name.
      criticalAlerts: [{ message, agent: "google", flaggedAt: at - 60_000 }],
    });
    expect(body.interventions).toEqual([
      { title: message, priority: "critical", agent: "google" },
      { title: "Finance: The Stripe export failed.", priority: "high", agent: "finance" },
    ]);
  });

  it("crew user list has a role column", async () => {
    await s.createUser("operator", "boss@example.com", "owner");
    const env = { DATABASE_URL: s.config.databaseUrl, CREW_SECRET: "test-secret-test-secret-test-secret-00", LOG_LEVEL: "silent" };
    const listed = await runCliInProcess(["user", "list"], env);
    expect(listed.code).toBe(0);
    const [header, ...lines] = listed.stdout.trim().split("\n");
    expect(header?.split(/\s+/)).toEqual(["EMAIL", "NAME", "ROLE", "PLAN", "KEYS", "STATUS"]);
    expect(lines.find((l) => l.startsWith("boss@example.com"))).toMatch(/\sowner\s+operator\s/);
  });
});
