/**
 * crew_find_time, crew_calendar_create and the calendar agent on a connected Google or Microsoft
 * calendar (src/docs/notes/connections.md), against the fake Google and Microsoft servers on
 * loopback (named so; the real ones are out of reach): a busy slot from freeBusy / getSchedule is
 * avoided, the event is inserted at the provider, and the calendar agent reads the week.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runModelAgent } from "../../src/agents/model-run.ts";
import { connectAccount, signedInTab } from "../helpers/connect-account.ts";
import { type FakeGoogle, startFakeGoogle } from "../helpers/fake-google.ts";
import { type FakeMicrosoft, startFakeMicrosoft } from "../helpers/fake-microsoft.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { untrustedData } from "../helpers/run-data.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let google: FakeGoogle;
let microsoft: FakeMicrosoft;
let model: ScriptedModel;
let s: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  google = await startFakeGoogle();
  microsoft = await startFakeMicrosoft();
  model = await startScriptedModel(() => ({ object: { summary: "Week read" } }));
  s = await startServer({ env: { ...google.env, ...microsoft.env, ...modelEnv(model) } });
}, 30_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  await model?.close();
  await google?.close();
  await microsoft?.close();
});

async function toolsFor(provider: "google" | "microsoft", email: string) {
  const user = await s.createUser("operator", email, "owner");
  await connectAccount(await signedInTab(s, email), provider, { calendar: true });
  const mcp = await connectHttp(s.url, await s.createKey(user, ["admin"]));
  clients.push(mcp);
  return (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<CallToolResult>;
}

// Monday 23 November 2026, UTC; the test clock stands on the Sunday before.
const MONDAY = { from: "2026-11-23T09:00:00Z", to: "2026-11-23T17:00:00Z", timeZone: "UTC" };

describe("a connected Google calendar (fake Google)", () => {
  it("crew_find_time avoids the busy slot from freeBusy; crew_calendar_create inserts the event there", async () => {
    google.busy.push({ start: "2026-11-23T09:00:00Z", end: "2026-11-23T10:30:00Z" });
    const call = await toolsFor("google", "cal.google@example.org");
    const found = await call("crew_find_time", { durationMinutes: 60, count: 2, ...MONDAY });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect((found.structuredContent as { slots: unknown[] }).slots).toEqual([
      { start: "2026-11-23T10:30:00+00:00", end: "2026-11-23T11:30:00+00:00" },
      { start: "2026-11-23T11:30:00+00:00", end: "2026-11-23T12:30:00+00:00" },
    ]);
    expect(google.apiCalls.at(-1)).toMatchObject({ method: "POST", path: "/calendar/v3/freeBusy" });

    const made = await call("crew_calendar_create", {
      title: "Initech demo",
      start: "2026-11-23T10:30:00Z",
      end: "2026-11-23T11:30:00Z",
      attendees: ["buyer@initech.example"],
    });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    expect(made.structuredContent).toMatchObject({ eventId: "ev1" });
    expect(google.events).toEqual([
      expect.objectContaining({
        summary: "Initech demo",
        start: { dateTime: "2026-11-23T10:30:00.000Z" },
        end: { dateTime: "2026-11-23T11:30:00.000Z" },
        attendees: [{ email: "buyer@initech.example" }],
      }),
    ]);
  });

  it("the calendar agent reads the week from events.list", async () => {
    const run = await runModelAgent(s.deps, s.org, "calendar");
    expect(run.status).toBe("ok");
    const text = model.requests.at(-1)?.messages[0]?.text ?? "";
    const events = untrustedData(text, "calendar_events") ?? [];
    expect(events.map((e: { title: string }) => e.title)).toContain("Initech demo");
    expect(
      google.apiCalls.some(
        (c) => c.method === "GET" && c.path === "/calendar/v3/calendars/primary/events" && c.query.singleEvents === "true",
      ),
    ).toBe(true);
  });
});

describe("a connected Microsoft 365 calendar (fake Graph)", () => {
  it("crew_find_time avoids the busy slot from getSchedule; crew_calendar_create posts /me/events", async () => {
    microsoft.busy.push({ start: "2026-11-23T13:00:00Z", end: "2026-11-23T14:00:00Z" });
    const call = await toolsFor("microsoft", "cal.ms@example.org");
    const found = await call("crew_find_time", {
      durationMinutes: 120,
      count: 2,
      from: "2026-11-23T12:00:00Z",
      to: "2026-11-23T17:00:00Z",
      timeZone: "UTC",
    });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    expect((found.structuredContent as { slots: unknown[] }).slots).toEqual([
      { start: "2026-11-23T14:00:00+00:00", end: "2026-11-23T16:00:00+00:00" },
    ]);
    const made = await call("crew_calendar_create", { title: "Board prep", start: "2026-11-23T14:00:00Z", end: "2026-11-23T16:00:00Z" });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    expect(microsoft.events).toEqual([
      expect.objectContaining({ subject: "Board prep", start: { dateTime: "2026-11-23T14:00:00.000", timeZone: "UTC" } }),
    ]);
  });
});
