/**
 * Confirmations at MCP 2026-07-28 (issue 35 item 2; issue 33 items 7 and 17): checks before data —
 * a caller whose plan or scope refuses the tool gets no elicitation and learns no title; only an
 * elicitation `accept` with `confirm: true` confirms, any other answer in its place changes
 * nothing; and a declined confirmation is a result the SDK v2 client accepts after `tools/list`
 * (it validates results against the declared output schema once it has listed the tools).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/lib/clock.ts";
import { modernPost } from "../helpers/mcp.ts";
import { type Radicale, startRadicale } from "../helpers/radicale.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const NOW = Date.parse("2026-11-23T07:00:00Z");
let s: TestServer;
let dav: Radicale;
let calendar: string;
let ownerKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  [dav, s] = await Promise.all([startRadicale({ frank: "frank-pw" }), startServer({ clock: new ManualClock(NOW) })]);
  calendar = await dav.makeCalendar("frank", "frank-pw");
  ({ key: ownerKey } = await s.userWithKey("operator", ["admin"]));
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  await dav?.stop();
});

type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

async function elicitingClient(key: string, answer: () => Answer, asked: string[]): Promise<Client> {
  const client = new Client(
    { name: "v2-elicit", version: "2.4.0" },
    { capabilities: { elicitation: { form: {} } } as never, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", async (request: any) => {
    asked.push(request.params.message);
    return answer() as never;
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  clients.push(client);
  return client;
}

async function criticalAction(title: string): Promise<string> {
  const res = await api(s.url, ownerKey)("/api/mcp/actions", { body: { title, priority: "critical" } });
  expect(res.status, res.text).toBe(200);
  return res.json.actionId as string;
}

const statusOf = async (id: string) => (await api(s.url, ownerKey)(`/api/mcp/actions/${id}`)).json.status as string;
const textOf = (r: any): string => r.content.map((c: any) => c.text ?? "").join("\n");

/** A raw 2026-07-28 tools/call declaring form elicitation, with `inputResponses` as a retry carries them. */
const rawCall = (key: string, name: string, args: Record<string, unknown>, inputResponses?: Record<string, unknown>) =>
  modernPost(
    s.url,
    key,
    "tools/call",
    { name, arguments: args, ...(inputResponses && { inputResponses }) },
    {
      name,
      capabilities: { elicitation: { form: {} } },
    },
  );

describe("checks before data", () => {
  for (const [who, plan, code] of [
    ["a pro read key", "pro", "plan_upgrade_required"],
    ["an operator's read key", "operator", "insufficient_scope"],
  ] as const)
    it(`gives ${who}'s write call no elicitation and no title, only the refusal`, async () => {
      const id = await criticalAction("Rotate the signing key of Project Falcon");
      const { key } = await s.userWithKey(plan, ["read"]);
      const asked: string[] = [];
      const client = await elicitingClient(key, () => ({ action: "accept", content: { confirm: true } }), asked);
      const result = await client.callTool({ name: "crew_update_action", arguments: { id, status: "dismissed" } });
      expect(asked).toEqual([]);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(code);
      expect(textOf(result)).not.toContain("Falcon");
      const raw = await rawCall(key, "crew_update_action", { id, status: "dismissed" });
      expect(raw.status, raw.text).toBe(200);
      expect(raw.text).not.toContain("Falcon");
      expect(raw.json.result.resultType).not.toBe("input_required");
      expect(await statusOf(id)).toBe("pending");
    });

  it("gives a lite user's call no elicitation either (the plan refuses first)", async () => {
    const id = await criticalAction("Close the Falcon escrow");
    const { key } = await s.userWithKey("lite", ["admin"]);
    const raw = await rawCall(key, "crew_update_action", { id, status: "dismissed" });
    expect(raw.text).not.toContain("Falcon");
    expect(raw.json.result.isError).toBe(true);
    expect(raw.text).toContain("plan_upgrade_required");
    expect(await statusOf(id)).toBe("pending");
  });
});

describe("issue 33 item 7: a confirmation only as the elicitation accept it asked for", () => {
  const wrongShapes: [string, Record<string, unknown>][] = [
    ["a roots result", { roots: [{ uri: "file:///", name: "root" }] }],
    ["a sampling result", { role: "assistant", content: { type: "text", text: "yes" }, model: "m" }],
    ["an accept without the field", { action: "accept", content: {} }],
    ["an accept with a string", { action: "accept", content: { confirm: "true" } }],
    ["a decline carrying the field", { action: "decline", content: { confirm: true } }],
  ];
  for (const [what, answer] of wrongShapes) {
    it(`changes nothing for ${what} in place of the answer`, async () => {
      const id = await criticalAction(`Shape: ${what}`);
      const first = await rawCall(ownerKey, "crew_update_action", { id, status: "dismissed" });
      expect(first.json.result.resultType, first.text).toBe("input_required");
      const retried = await rawCall(ownerKey, "crew_update_action", { id, status: "dismissed" }, { confirm: answer });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.json.result.isError, retried.text).toBe(true);
      expect(textOf(retried.json.result)).toContain("Nothing was changed");
      expect(await statusOf(id)).toBe("pending");
    });
  }

  it("dismisses on the accept it asked for", async () => {
    const id = await criticalAction("Accepted properly");
    const done = await rawCall(
      ownerKey,
      "crew_update_action",
      { id, status: "dismissed" },
      { confirm: { action: "accept", content: { confirm: true } } },
    );
    expect(done.json.result.isError, done.text).toBeFalsy();
    expect(await statusOf(id)).toBe("dismissed");
  });
});

describe("issue 33 item 17: the SDK v2 client declining after tools/list", () => {
  it("gets a tool error with words for crew_update_action and crew_calendar_create, not a throw", async () => {
    const connect = await api(s.url, ownerKey)("/api/integrations/calendar", {
      body: { url: dav.url, username: "frank", password: "frank-pw" },
    });
    expect(connect.status, connect.text).toBe(200);
    const id = await criticalAction("Keep this one");
    let answer: Answer = { action: "decline" };
    const asked: string[] = [];
    const client = await elicitingClient(ownerKey, () => answer, asked);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "crew_update_action")?.outputSchema).toBeTruthy();
    expect(tools.find((t) => t.name === "crew_calendar_create")?.outputSchema).toBeTruthy();

    for (const action of ["decline", "cancel"] as const) {
      answer = { action };
      const kept = await client.callTool({ name: "crew_update_action", arguments: { id, status: "dismissed" } });
      expect(kept.isError).toBe(true);
      expect(textOf(kept)).toContain("Nothing was changed");
      const event = { title: `Not ${action}d`, start: "2026-11-24T10:00:00+01:00", end: "2026-11-24T11:00:00+01:00" };
      const none = await client.callTool({ name: "crew_calendar_create", arguments: event });
      expect(none.isError).toBe(true);
      expect(textOf(none)).toContain("Nothing was created");
    }
    expect(asked).toHaveLength(4);
    expect(await statusOf(id)).toBe("pending");
    expect(await dav.listEvents(calendar, "frank", "frank-pw")).toEqual([]);
  });
});
