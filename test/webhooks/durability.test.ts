/**
 * The outbox's guarantees (src/docs/notes/webhooks.md): an event is recorded exactly when its write commits (a failed
 * batch leaves neither), a restart loses nothing (a new instance on the same database file delivers
 * what the first left, including a claim the first took and never finished), two deliverers on one
 * database deliver each attempt exactly once, and the background task sends at once after a write.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveryTask } from "../../src/background/delivery.ts";
import { DAY, ManualClock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/random.ts";
import { actionCreated, actionInsertStatement } from "../../src/store/actions/actions.ts";
import { commit } from "../../src/store/commit.ts";
import { claimDueDeliveries, outboxStatement } from "../../src/store/delivery/webhooks.ts";
import { HISTORY_DAYS, runRetention } from "../../src/store/retention.ts";
import { CLAIM_MS, deliverDue } from "../../src/webhooks/deliver.ts";
import { testDatabaseUrl } from "../helpers/database.ts";
import { actionRow, type Call, client, serverWithClient } from "../helpers/rest.ts";
import { api, prepareDatabase, type TestServer, tempDir } from "../helpers/server.ts";
import { deliveryRows, type Receiver, secondInstance, serveFile, startReceiver, subscribe, verifyAt } from "../helpers/webhooks.ts";

let s: TestServer;
let call: Call;
serverWithClient("operator", ["admin"], (f) => ({ s, call } = f));

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const countDeliveries = async () => Number((await s.db.all<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries"))[0]?.n);
const countActions = async () => Number((await s.db.all<{ n: number }>("SELECT count(*) AS n FROM actions"))[0]?.n);

describe("the outbox commits with the write", () => {
  it("records nothing for a refused batch (a bad action among good ones)", async () => {
    await subscribe(call, receiver.url);
    const [actions, deliveries] = [await countActions(), await countDeliveries()];
    const res = await call("/api/mcp/actions", { body: { actions: [{ title: "Good" }, { title: "Bad", contactId: "con_missing" }] } });
    expect(res.status).toBe(400);
    expect([await countActions(), await countDeliveries()]).toEqual([actions, deliveries]);
  });

  it("rolls back with a batch that fails inside the database", async () => {
    const now = s.clock.now();
    const user = (await client(s, "operator", ["admin"])).user;
    const row = (title: string, id = newId("act", now)) => actionRow(s.org.id, user.id, now, { id, title });
    const existing = row("Stored first");
    await s.db.execute(actionInsertStatement(existing));
    const rows = [row("New"), row("Duplicate id", existing.id)];
    const [actions, deliveries] = [await countActions(), await countDeliveries()];
    const emitted: unknown[] = [];
    const write = commit(
      s.db,
      rows.map(actionInsertStatement),
      rows.map((r) => actionCreated({ ...r, orgId: s.org.id })),
      (e) => emitted.push(e),
    );
    await expect(write).rejects.toThrow(/UNIQUE|duplicate key/);
    expect([await countActions(), await countDeliveries()]).toEqual([actions, deliveries]);
    expect(emitted).toEqual([]); // no domain event for a write that rolled back
  });

  it("records no delivery for an organization with no subscription wanting the event", async () => {
    const deliveries = await countDeliveries();
    const event = { event: "standup.ready" as const, standupId: "std_x", timestamp: new Date(s.clock.now()).toISOString() };
    const actionEvent = {
      type: "action.created" as const,
      orgId: "org_other",
      actionId: "act_x",
      title: "Call Acme",
      priority: "low",
      status: "open",
      source: "api",
      contactId: null,
      dealId: null,
      at: 0,
    };
    await s.db.batch([outboxStatement(s.org.id, event, s.clock.now())], "write");
    await commit(s.db, [], [actionEvent], () => {});
    expect(await countDeliveries()).toBe(deliveries);
  });
});

describe("restarts", () => {
  const temp = tempDir("crew-webhooks-restart-");
  let dbUrl: string;
  const clock = new ManualClock();
  let key: string;
  let hook: { id: string; secret: string };
  beforeAll(async () => {
    dbUrl = await testDatabaseUrl(temp.dir);
    const { db, org } = await prepareDatabase(dbUrl, s.config, clock.now());
    db.close();
    const first = await serveFile(dbUrl, clock);
    const fixture = { ...s, db: first.deps.db, org, clock } as TestServer;
    key = (await client(fixture, "operator", ["admin"])).key;
    hook = await subscribe(api(first.url, key), receiver.url);
    await first.close();
  });
  afterAll(() => temp.cleanup());

  it("a new instance on the same database file delivers what the first left pending", async () => {
    const before = receiver.hits.length;
    const first = await serveFile(dbUrl, clock);
    const added = await api(first.url, key)("/api/mcp/actions", { body: { title: "Written before the stop" } });
    expect(added.status).toBe(200);
    await first.close(); // stopped before any delivery

    const second = await serveFile(dbUrl, clock);
    try {
      expect(await deliverDue(second.deps)).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      const hit = receiver.hits[before]!;
      expect(verifyAt(hook.secret, hit, clock.now())).toMatchObject({ actionId: added.json.actionId });
      const listed = await api(second.url, key)(`/api/webhooks/${hook.id}/deliveries?limit=1`);
      expect(listed.json.deliveries[0]).toMatchObject({ status: "delivered", attempts: 1 });
    } finally {
      await second.close();
    }
  });

  it("takes over a claim a crashed instance never finished, once its lock expires", async () => {
    const before = receiver.hits.length;
    const crashed = await serveFile(dbUrl, clock);
    await api(crashed.url, key)("/api/mcp/actions", { body: { title: "Claimed, then the process died" } });
    expect(await claimDueDeliveries(crashed.deps.db, clock.now(), clock.now() + CLAIM_MS, 10)).toHaveLength(1);
    await crashed.close();

    const next = await serveFile(dbUrl, clock);
    try {
      expect(await deliverDue(next.deps)).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      clock.advance(CLAIM_MS);
      expect(await deliverDue(next.deps)).toEqual({ delivered: 0, retrying: 0, failed: 0 });
      clock.advance(1);
      expect(await deliverDue(next.deps)).toEqual({ delivered: 1, retrying: 0, failed: 0 });
      expect(receiver.hits.length - before).toBe(1);
      const listed = await api(next.url, key)(`/api/webhooks/${hook.id}/deliveries?limit=1`);
      expect(listed.json.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 });
    } finally {
      await next.close();
    }
  });
});

describe("several deliverers on one database", () => {
  it("deliver each attempt exactly once while ticking concurrently", async () => {
    const counting = await startReceiver({ script: Array(10).fill(500) });
    const other = await secondInstance(s);
    try {
      const hook = await subscribe(call, counting.url);
      const titles = Array.from({ length: 40 }, (_, i) => ({ title: `Concurrent ${i}` }));
      expect((await call("/api/mcp/actions", { body: { actions: titles } })).status).toBe(200);
      // Rounds of both ticking at once, small claims so they interleave; the first 10 answers are 500s (retried).
      for (let round = 0; round < 3; round++) {
        await Promise.all([
          deliverDue(s.deps, { batchSize: 3 }),
          deliverDue(other, { batchSize: 3 }),
          deliverDue(s.deps, { batchSize: 2 }),
        ]);
        s.clock.advance(5_000);
      }
      const rows = await deliveryRows(s, hook.id);
      expect(rows.map((r) => r.status)).toEqual(Array(40).fill("delivered"));
      const ids = counting.hits.map((h) => String(h.headers["webhook-id"]));
      expect(ids).toHaveLength(50);
      const perEvent = new Map<string, number>();
      for (const id of ids) perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      // Each event: one attempt per row attempt, never two sends of one attempt.
      for (const r of rows) expect(perEvent.get(r.event_id), r.event_id).toBe(r.attempts);
      expect(rows.reduce((n, r) => n + r.attempts, 0)).toBe(50);
    } finally {
      other.close();
      await counting.close();
      await s.db.execute({ sql: "DELETE FROM webhooks WHERE url = ?", args: [counting.url] });
    }
  });
});

describe("the background task", () => {
  it("delivers at once after a write, and stops cleanly", async () => {
    const live = await startReceiver();
    const task = webhookDeliveryTask({ intervalMs: 3_600_000 }).start(s.deps);
    try {
      const hook = await subscribe(call, live.url);
      const added = await call("/api/mcp/actions", { body: { title: "Sent by the running task" } });
      await live.received(1); // no timer involved: the action's event wakes the task
      expect(verifyAt(hook.secret, live.hits[0]!, s.clock.now())).toMatchObject({ actionId: added.json.actionId });
    } finally {
      await task.stop();
      await live.close();
    }
  });

  it("gives back a claim whose request is still in flight when it stops: due again, the attempt not counted", async () => {
    const slow = await startReceiver({ hang: true });
    const task = webhookDeliveryTask({ intervalMs: 3_600_000 }).start(s.deps);
    try {
      const hook = await subscribe(call, slow.url);
      await call("/api/mcp/actions", { body: { title: "In flight at shutdown" } });
      await slow.received(1);
      expect(await deliveryRows(s, hook.id)).toMatchObject([{ status: "delivering", attempts: 1 }]);
      await task.stop();
      expect(await deliveryRows(s, hook.id)).toMatchObject([{ status: "pending", attempts: 0, next_attempt_at: s.clock.now() }]);
    } finally {
      await task.stop();
      await slow.close();
      await s.db.execute({
        sql: "DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE url = ?)",
        args: [slow.url],
      });
      await s.db.execute({ sql: "DELETE FROM webhooks WHERE url = ?", args: [slow.url] });
    }
  });

  // One retention policy (src/store/retention.ts): the retention pass forgets them, the deliverer does not.
  it(`forgets finished deliveries after ${HISTORY_DAYS} days, keeping newer ones and those still pending`, async () => {
    const RETENTION_MS = HISTORY_DAYS * DAY;
    const hook = await subscribe(call, "https://retention.example.com/");
    const now = s.clock.now();
    const row = (eventId: string, status: string, updatedAt: number) =>
      s.db.execute({
        sql: `INSERT INTO webhook_deliveries (webhook_id, event_id, event, payload, status, attempts, next_attempt_at, created_at, updated_at)
              VALUES (?, ?, 'action.created', '{}', ?, 1, ?, ?, ?)`,
        args: [hook.id, eventId, status, status === "pending" ? now + DAY : null, updatedAt, updatedAt],
      });
    await row("evt_old_delivered", "delivered", now - RETENTION_MS - 1);
    await row("evt_old_failed", "failed", now - RETENTION_MS - 1);
    await row("evt_recent", "delivered", now - RETENTION_MS + 1);
    await row("evt_waiting", "pending", now - RETENTION_MS - 1);
    const task = webhookDeliveryTask({ intervalMs: 3_600_000 }).start(s.deps);
    await task.stop(); // a delivery pass keeps them all
    expect(await deliveryRows(s, hook.id)).toHaveLength(4);
    await runRetention(s.db, now);
    expect((await deliveryRows(s, hook.id)).map((r) => r.event_id)).toEqual(["evt_recent", "evt_waiting"]);
  });
});
