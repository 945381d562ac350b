/**
 * Webhook payloads a receiver can use alone (issue 33): action.created carries the action's title,
 * priority, status, source and its web address, whichever door added it (REST, MCP, the web app),
 * signed like every delivery; real loopback receivers, verified with standardwebhooks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { type Call, serverWithClient } from "../helpers/rest.ts";
import type { TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver, subscribe, verifyAt } from "../helpers/webhooks.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
let call: Call;
let key: string;
serverWithClient("operator", ["admin"], (f) => ({ s, call, key } = f));

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe("action.created carries what a receiver needs", () => {
  it("from REST, MCP and the web app alike", async () => {
    const hook = await subscribe(call, receiver.url);
    expect((await call("/api/mcp/actions", { body: { title: "Call Ada", priority: "high" } })).status).toBe(200);
    const client = await connectHttp(s.url, key);
    await client.callTool({ name: "crew_add_action", arguments: { title: "Mail Grace", priority: "low" } });
    await client.close();
    const person = await s.createUser("operator", "payload-web@example.com");
    const tab = new Browserish(s.url);
    await tab.signIn(person.email);
    const csrf = await tab.csrfToken("/actions");
    expect((await tab.request("/actions", { form: { csrf, title: "Book the venue", priority: "critical" } })).status).toBe(303);

    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 3, failed: 0 });
    const payloads = receiver.hits.map((hit) => verifyAt(hook.secret, hit, s.clock.now()) as Record<string, string>);
    const byTitle = Object.fromEntries(payloads.map((p) => [p.title, p]));
    expect(byTitle["Call Ada"]).toMatchObject({ priority: "high", status: "pending", source: "api" });
    expect(byTitle["Mail Grace"]).toMatchObject({ priority: "low", status: "pending", source: "mcp" });
    expect(byTitle["Book the venue"]).toMatchObject({ priority: "critical", status: "pending", source: "web" });
    for (const p of payloads) {
      expect(p.url).toBe(`${s.url}/actions#${p.actionId}`);
      expect(Object.keys(p).sort()).toEqual(["actionId", "event", "priority", "source", "status", "timestamp", "title", "url"]);
    }
    // The web app's list shows the action under that anchor.
    expect((await tab.request("/actions")).text).toContain(`id="${byTitle["Book the venue"]!.actionId}"`);
  });
});
