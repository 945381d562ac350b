/**
 * Multi round-trip input at MCP 2026-07-28 (issue 23 item 3) against a real CalDAV server
 * (Radicale): crew_calendar_create asks the SDK v2 client to confirm title, start and end; accept
 * creates the event, decline and cancel create nothing and say so; without a calendar, a client
 * taking URL elicitations is sent to Crew's calendar settings (no credential through a form).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/lib/clock.ts";
import { type Radicale, startRadicale } from "../helpers/radicale.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const NOW = Date.parse("2026-11-23T07:00:00Z");
let dav: Radicale;
let s: TestServer;
let calendar: string;
const clients: Client[] = [];

beforeAll(async () => {
  [dav, s] = await Promise.all([startRadicale({ frank: "frank-pw" }), startServer({ clock: new ManualClock(NOW) })]);
  calendar = await dav.makeCalendar("frank", "frank-pw");
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  await dav?.stop();
});

type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

async function modernClient(key: string, elicitation: Record<string, unknown>, answer: () => Answer, asked: any[]) {
  const client = new Client(
    { name: "v2-elicit", version: "2.4.0" },
    { capabilities: { elicitation } as never, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async (request: any) => {
    asked.push(request.params);
    return answer() as never;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

const EVENT = { title: "Board prep", start: "2026-11-24T10:00:00+01:00", end: "2026-11-24T11:00:00+01:00" };
const textOf = (r: any) => r.content.map((c: any) => c.text ?? "").join("\n");

describe("issue 23 item 3: confirmation before crew_calendar_create", () => {
  it("creates on accept, and nothing on decline or cancel, saying so", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const connect = await api(s.url, key)("/api/integrations/calendar", {
      body: { url: dav.url, username: "frank", password: "frank-pw" },
    });
    expect(connect.status, connect.text).toBe(200);
    const asked: any[] = [];
    let answer: Answer = { action: "decline" };
    const client = await modernClient(key, { form: {} }, () => answer, asked);

    const declined = await client.callTool({ name: "crew_calendar_create", arguments: { ...EVENT, title: "Declined" } });
    expect(asked[0].message).toContain('Create "Declined" from 2026-11-24T10:00:00+01:00 to 2026-11-24T11:00:00+01:00');
    expect(textOf(declined)).toContain("You declined");
    expect(textOf(declined)).toContain("Nothing was created");
    answer = { action: "cancel" };
    const cancelled = await client.callTool({ name: "crew_calendar_create", arguments: { ...EVENT, title: "Cancelled" } });
    expect(textOf(cancelled)).toContain("You cancelled");
    expect(await dav.listEvents(calendar, "frank", "frank-pw")).toEqual([]);

    answer = { action: "accept", content: { confirm: true } };
    const created = await client.callTool({ name: "crew_calendar_create", arguments: EVENT });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ eventId: expect.any(String) });
    const stored = await dav.listEvents(calendar, "frank", "frank-pw");
    expect(stored).toHaveLength(1);
    expect(stored[0]).toContain("SUMMARY:Board prep");
    expect(asked).toHaveLength(3);
  });

  it("sends a URL-capable client without a calendar to the calendar settings page", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const asked: any[] = [];
    const client = await modernClient(key, { form: {}, url: {} }, () => ({ action: "accept" }), asked);
    const result = await client.callTool({ name: "crew_calendar_create", arguments: EVENT });
    expect(asked[0]).toMatchObject({ mode: "url", url: `${s.url}/settings/calendar` });
    expect(JSON.stringify(asked[0])).not.toMatch(/password/i);
    // Still none connected after the visit: the tool says how to connect.
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("calendar");
  });
});
