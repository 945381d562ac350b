/**
 * Issue 18 item 25: a webhook that keeps failing must not read "Last used: just now" as if all were
 * well. Each subscription keeps its last success and its last failure with the reason, shown on the
 * webhooks page and in GET /api/webhooks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverDue } from "../../src/webhooks/deliver.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { type Receiver, startReceiver, subscribe } from "../helpers/webhooks.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  s = await startServer();
  receiver = await startReceiver({ script: [200], fallback: 500 });
});
afterAll(async () => {
  await receiver.close();
  await s.close();
});

describe("a webhook's last success and last failure", () => {
  it("are kept per subscription, listed by the API and shown with the failure's reason in Settings", async () => {
    const owner = await s.createUser("operator", undefined, "owner");
    const call = api(s.url, await s.createKey(owner, ["admin"]));
    const hook = await subscribe(call, receiver.url);
    const listed = async () => (await call("/api/webhooks")).json.webhooks.find((w: { id: string }) => w.id === hook.id);
    expect(await listed()).toMatchObject({ lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null });

    await call("/api/mcp/actions", { body: { title: "First" } });
    expect(await deliverDue(s.deps)).toMatchObject({ delivered: 1 });
    const okAt = s.clock.now();
    s.clock.advance(12 * 60_000);
    await call("/api/mcp/actions", { body: { title: "Second" } });
    expect(await deliverDue(s.deps)).toMatchObject({ retrying: 1 });

    const after = await listed();
    expect(after.lastSuccessAt).toBe(new Date(okAt).toISOString());
    expect(after.lastFailureAt).toBe(new Date(s.clock.now()).toISOString());
    expect(after.lastFailureReason).toContain("HTTP 500");

    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const page = (await tab.request("/settings/webhooks")).text;
    expect(page).toContain("Last success");
    expect(page).toContain("Last failure");
    expect(page).toContain("HTTP 500");
    expect(page).toContain("12 min ago");
  });
});
