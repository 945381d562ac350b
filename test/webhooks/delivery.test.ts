/**
 * Delivery of action.created (src/docs/notes/webhooks.md) to real loopback receivers, driven by a ManualClock: the
 * Standard Webhooks signature verifies with the `standardwebhooks` package; one event per action
 * (REST single and batch, MCP); retries after 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, then failed;
 * redirects not followed; the deliveries endpoint shows every attempt.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { webhookEventOf } from "../../src/domain.ts";
import { UNREACHABLE_TARGET } from "../../src/integrations/outbound-targets.ts";
import { DAY, iso } from "../../src/lib/clock.ts";
import type { OutboundPolicy } from "../../src/lib/outbound-policy.ts";
import { outboxStatement } from "../../src/store/delivery/webhooks.ts";
import { deliverDue, MAX_ATTEMPTS, RETRY_DELAYS_MS } from "../../src/webhooks/deliver.ts";
import { mcpPost } from "../helpers/mcp.ts";
import { type Call, serverWithClient } from "../helpers/rest.ts";
import type { TestServer } from "../helpers/server.ts";
import { deliveryRows, type Receiver, secondInstance, startReceiver, subscribe, verifyAt } from "../helpers/webhooks.ts";

let s: TestServer;
let call: Call;
let key: string;
serverWithClient("operator", ["admin"], (f) => ({ s, call, key } = f));

let receiver: Receiver;
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await receiver.close();
  // Each test starts without subscriptions (their receivers are gone).
  await s.db.batch(["DELETE FROM webhook_deliveries", "DELETE FROM webhooks"], "write");
});

const tick = () => deliverDue(s.deps);

describe("action.created", () => {
  it("is delivered once, signed so that standardwebhooks' Webhook.verify accepts it", async () => {
    const hook = await subscribe(call, receiver.url);
    const contact = await call("/api/mcp/contacts", { body: { name: "Ada Lovelace", email: "ada@example.com" } });
    const added = await call("/api/mcp/actions", {
      body: { title: "Call Ada", contactId: contact.json.contactId, dealId: "deal-42" },
    });
    expect(added.status).toBe(200);
    expect(await deliveryRows(s, hook.id)).toMatchObject([{ status: "pending", attempts: 0 }]);

    expect(await tick()).toEqual({ delivered: 1, retrying: 0, failed: 0 });
    expect(receiver.hits).toHaveLength(1);
    const hit = receiver.hits[0]!;
    const payload = {
      event: "action.created",
      actionId: added.json.actionId,
      title: "Call Ada",
      priority: "medium",
      status: "pending",
      source: "api",
      timestamp: iso(s.clock.now()),
      contactId: contact.json.contactId,
      dealId: "deal-42",
      url: `${s.url}/actions#${added.json.actionId}`,
    };
    expect(verifyAt(hook.secret, hit, s.clock.now())).toEqual(payload);
    expect(hit.headers["content-type"]).toBe("application/json");
    expect(hit.headers["webhook-id"]).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(hit.headers["webhook-timestamp"]).toBe(String(Math.floor(s.clock.now() / 1000)));
    expect(hit.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // The signature covers the body, the id and the timestamp, under this subscription's secret only.
    expect(() => verifyAt(hook.secret, { ...hit, body: hit.body.replace("deal-42", "deal-43") }, s.clock.now())).toThrow();
    expect(() => verifyAt(hook.secret, { ...hit, headers: { ...hit.headers, "webhook-id": "evt_other" } }, s.clock.now())).toThrow();
    const other = await subscribe(call, "https://example.com/unused");
    expect(() => verifyAt(other.secret, hit, s.clock.now())).toThrow();
    // Acknowledged: nothing more is sent.
    s.clock.advance(DAY);
    expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(receiver.hits).toHaveLength(1);
  });

  it("a batch of 3 actions makes 3 events, each with its own id, in input order", async () => {
    const hook = await subscribe(call, receiver.url);
    const added = await call("/api/mcp/actions", { body: { actions: [{ title: "One" }, { title: "Two" }, { title: "Three" }] } });
    expect(added.status).toBe(200);
    expect(await tick()).toMatchObject({ delivered: 3 });
    const bodies = receiver.hits.map((h) => verifyAt(hook.secret, h, s.clock.now()) as any);
    expect(bodies.map((b) => b.actionId).sort()).toEqual([...added.json.actionIds].sort());
    // Optional fields are left out when the action has none.
    expect(Object.keys(bodies[0]).sort()).toEqual(["actionId", "event", "priority", "source", "status", "timestamp", "title", "url"]);
    expect(new Set(receiver.hits.map((h) => h.headers["webhook-id"])).size).toBe(3);
  });

  it("is raised by the MCP tool too", async () => {
    const hook = await subscribe(call, receiver.url);
    const res = await mcpPost(
      s.url,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "crew_add_action", arguments: { actions: [{ title: "A" }, { title: "B" }] } },
      },
      { Authorization: `Bearer ${key}` },
    );
    expect(res.json.result.isError).toBeFalsy();
    expect(await tick()).toMatchObject({ delivered: 2 });
    expect(receiver.hits.map((h) => (verifyAt(hook.secret, h, s.clock.now()) as any).event)).toEqual(["action.created", "action.created"]);
  });

  it("goes to every subscription that wants it, under one event id, and to no other", async () => {
    const second = await startReceiver();
    try {
      const a = await subscribe(call, receiver.url);
      const b = await subscribe(call, second.url, ["standup.ready", "action.created"]);
      const unrelated = await subscribe(call, second.url, ["standup.ready", "briefing.completed"]);
      await call("/api/mcp/actions", { body: { title: "Fan out" } });
      expect(await tick()).toMatchObject({ delivered: 2 });
      expect(receiver.hits).toHaveLength(1);
      expect(second.hits).toHaveLength(1);
      expect(receiver.hits[0]!.headers["webhook-id"]).toBe(second.hits[0]!.headers["webhook-id"]);
      expect(verifyAt(a.secret, receiver.hits[0]!, s.clock.now())).toEqual(verifyAt(b.secret, second.hits[0]!, s.clock.now()));
      expect(await deliveryRows(s, unrelated.id)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it("stops for a deleted subscription, pending retries included", async () => {
    receiver.fallback = 500;
    const hook = await subscribe(call, receiver.url);
    await call("/api/mcp/actions", { body: { title: "Before delete" } });
    expect(await tick()).toMatchObject({ retrying: 1 });
    expect((await call(`/api/webhooks/${hook.id}`, { method: "DELETE" })).status).toBe(200);
    await call("/api/mcp/actions", { body: { title: "After delete" } });
    s.clock.advance(DAY);
    expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(receiver.hits).toHaveLength(1);
    expect(await deliveryRows(s, hook.id)).toEqual([]);
  });
});

describe("standup.ready and briefing.completed", () => {
  it("are sent with exactly the body the writer recorded through outboxStatement", async () => {
    const hook = await subscribe(call, receiver.url, ["standup.ready", "briefing.completed"]);
    const at = iso(s.clock.now());
    const standup = { event: "standup.ready" as const, standupId: "std_01TEST", timestamp: at };
    const briefing = {
      event: "briefing.completed" as const,
      userId: "usr_01TEST",
      briefingId: "brf_01TEST",
      timestamp: at,
      summary: "Two deals need you.",
    };
    const actionCreated = webhookEventOf({
      type: "action.created",
      orgId: s.org.id,
      actionId: "act_x",
      title: "Call Acme",
      priority: "low",
      status: "open",
      source: "api",
      contactId: null,
      dealId: null,
      at: 0,
    });
    const statements = [standup, briefing, actionCreated!].map((event) => outboxStatement(s.org.id, event, s.clock.now()));
    await s.db.batch(statements, "write");
    // nobody subscribed to action.created: two deliveries
    expect(await tick()).toMatchObject({ delivered: 2 });
    const bodies = receiver.hits.map((h) => verifyAt(hook.secret, h, s.clock.now()));
    expect(bodies).toEqual(expect.arrayContaining([standup, briefing]));
    expect(receiver.hits[0]!.headers["webhook-id"]).not.toBe(receiver.hits[1]!.headers["webhook-id"]);
  });
});

describe("retries", () => {
  it("retries after 5 s and 30 s when the receiver answers 500 twice, then 200; the id stays, the timestamp moves", async () => {
    receiver.script = [500, 500];
    const hook = await subscribe(call, receiver.url);
    await call("/api/mcp/actions", { body: { title: "Flaky receiver" } });
    const t0 = s.clock.now();

    expect(await tick()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    expect(await deliveryRows(s, hook.id)).toMatchObject([
      { status: "pending", attempts: 1, next_attempt_at: t0 + 5_000, last_status: 500, last_error: "HTTP 500." },
    ]);
    s.clock.advance(4_999);
    expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    s.clock.advance(1);
    expect(await tick()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    expect((await deliveryRows(s, hook.id))[0]?.next_attempt_at).toBe(t0 + 5_000 + 30_000);
    s.clock.advance(29_999);
    expect(await tick()).toMatchObject({ delivered: 0 });
    s.clock.advance(1);
    expect(await tick()).toEqual({ delivered: 1, retrying: 0, failed: 0 });

    expect(receiver.hits).toHaveLength(3);
    const [first, second, third] = receiver.hits;
    expect(new Set(receiver.hits.map((h) => h.headers["webhook-id"])).size).toBe(1);
    expect(new Set(receiver.hits.map((h) => h.body)).size).toBe(1);
    expect([first, second, third].map((h) => Number(h!.headers["webhook-timestamp"]))).toEqual(
      [t0, t0 + 5_000, t0 + 35_000].map((t) => t / 1000),
    );
    expect(verifyAt(hook.secret, third!, s.clock.now())).toMatchObject({ event: "action.created" });

    const listed = await call(`/api/webhooks/${hook.id}/deliveries`);
    expect(listed.status).toBe(200);
    expect(listed.json.deliveries).toEqual([
      {
        eventId: first!.headers["webhook-id"],
        event: "action.created",
        payload: JSON.parse(first!.body),
        status: "delivered",
        attempts: 3,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        lastAttemptAt: iso(t0 + 35_000),
        createdAt: iso(t0),
        updatedAt: iso(t0 + 35_000),
      },
    ]);
    expect((await call("/api/webhooks")).json.webhooks[0].lastAttemptAt).toBe(iso(t0 + 35_000));
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts spaced 5 s, 30 s, 2 min, 10 min, 1 h, 6 h: failed`, async () => {
    receiver.fallback = 503;
    const hook = await subscribe(call, receiver.url);
    await call("/api/mcp/actions", { body: { title: "Receiver down" } });
    for (const delay of RETRY_DELAYS_MS) {
      expect(await tick()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      const [row] = await deliveryRows(s, hook.id);
      expect(row?.next_attempt_at).toBe(s.clock.now() + delay);
      s.clock.advance(delay - 1);
      expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      s.clock.advance(1);
    }
    expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 1 });
    expect(receiver.hits).toHaveLength(7);
    const listed = await call(`/api/webhooks/${hook.id}/deliveries`);
    expect(listed.json.deliveries[0]).toMatchObject({
      status: "failed",
      attempts: 7,
      lastStatusCode: 503,
      lastError: "HTTP 503.",
      nextAttemptAt: null,
    });
    s.clock.advance(7 * DAY);
    expect(await tick()).toEqual({ delivered: 0, retrying: 0, failed: 0 });
    expect(receiver.hits).toHaveLength(7);
  });

  it("does not follow redirects: a 3xx is a failed attempt and the target is never called", async () => {
    const elsewhere = await startReceiver();
    const redirecting = await startReceiver({ fallback: 307, location: elsewhere.url });
    try {
      const hook = await subscribe(call, redirecting.url);
      await call("/api/mcp/actions", { body: { title: "Redirected" } });
      expect(await tick()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      expect(redirecting.hits).toHaveLength(1);
      expect(elsewhere.hits).toHaveLength(0);
      expect(await deliveryRows(s, hook.id)).toMatchObject([
        { last_status: 307, last_error: "Redirects are not followed; use the final URL." },
      ]);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });

  it("records a refused connection as an attempt without a status", async () => {
    const gone = await startReceiver();
    await gone.close();
    const hook = await subscribe(call, gone.url);
    await call("/api/mcp/actions", { body: { title: "Nobody listening" } });
    expect(await tick()).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    const [row] = await deliveryRows(s, hook.id);
    expect(row).toMatchObject({ status: "pending", attempts: 1, last_status: null });
    expect(row?.last_error).toBe(UNREACHABLE_TARGET);
  });
});

describe("private targets at delivery time (issue 11 item 2: through the outbound policy)", () => {
  it("issue 11 item 2: a delivery to a private address once ALLOW_PRIVATE_TARGETS is off is not sent, with the unreachable message", async () => {
    const hook = await subscribe(call, receiver.url); // accepted while the flag was on
    await call("/api/mcp/actions", { body: { title: "Flag turned off" } });
    const strict = await secondInstance(s, s.clock, { allowPrivateTargets: false });
    try {
      expect(await deliverDue(strict)).toEqual({ delivered: 0, retrying: 1, failed: 0 });
    } finally {
      strict.close();
    }
    expect(receiver.hits).toHaveLength(0);
    expect((await deliveryRows(s, hook.id))[0]?.last_error).toBe(UNREACHABLE_TARGET);
  });

  it("issue 11 item 2: checks the resolved addresses of a name and connects to the address it checked", async () => {
    const strict = await secondInstance(s, s.clock, { allowPrivateTargets: false });
    const dialled: string[] = [];
    const outbound: OutboundPolicy = {
      allowPrivate: false,
      resolve: async (host) => (host === "internal.example.com" ? ["93.184.216.34", "64:ff9b::a00:7"] : ["93.184.216.34"]),
      // Stands in for the public network: records the vetted address, then reaches the loopback receiver.
      connect: async ({ url, address, method, headers, body, signal }) => {
        dialled.push(`${url.hostname}→${address}`);
        return fetch(receiver.url, { method, headers, body, signal, redirect: "manual" });
      },
    };
    try {
      const rebinding = await subscribe(call, "https://internal.example.com/hook");
      await call("/api/mcp/actions", { body: { title: "Rebinding" } });
      expect(await deliverDue({ ...strict, outbound })).toEqual({ delivered: 0, retrying: 1, failed: 0 });
      expect((await deliveryRows(s, rebinding.id))[0]?.last_error).toBe(UNREACHABLE_TARGET);
      expect(dialled).toEqual([]);

      await subscribe(call, "https://public.example.com/hook");
      await call("/api/mcp/actions", { body: { title: "Public" } });
      expect(await deliverDue({ ...strict, outbound })).toEqual({ delivered: 1, retrying: 1, failed: 0 }); // both hooks get the event
      expect(dialled).toEqual(["public.example.com→93.184.216.34"]);
      expect(receiver.hits).toHaveLength(1);
    } finally {
      strict.close();
    }
  });
});
