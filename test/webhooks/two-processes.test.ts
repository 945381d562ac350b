/**
 * Several Crew processes on one database behave as one service (src/docs/notes/postgres.md#several-processes-behind-a-load-balancer),
 * on either engine: two real server processes, requests spread over both.
 *
 * - 30 webhook events whose first attempt fails are each acknowledged exactly once, whichever
 *   process's deliverer claims them (the outbox claim, src/store/delivery/claim.ts);
 * - a process killed with SIGKILL in the middle of writes loses none of the writes it acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openStore } from "../../src/store/db.ts";
import { type DatabaseFile, databaseFileWithKey } from "../helpers/cli.ts";
import { waitFor } from "../helpers/listen.ts";
import { type SpawnedServer, spawnServer } from "../helpers/spawn.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";

const EVENTS = 30;

let database: DatabaseFile;
let db: Db;
let key: string;
let servers: SpawnedServer[] = [];
let receiver: Receiver | null = null;

const post = (server: SpawnedServer, path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  database = await databaseFileWithKey("two-processes");
  key = database.key;
  db = await openStore({ url: database.dbUrl });
  const env = { ...database.env, CREW_SECRET: "two-processes-secret-two-processes-secret", WEBHOOK_ALLOW_PRIVATE: "true" };
  servers = await Promise.all([spawnServer(env), spawnServer(env)]);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await receiver?.close();
  db?.close();
  database?.cleanup();
});

describe("two processes on one database", () => {
  it(`acknowledges each of ${EVENTS} events exactly once, their first attempt failing, whichever process delivers`, async () => {
    const [a, b] = servers as [SpawnedServer, SpawnedServer];
    // Each event's first attempt is answered 500, every later one 200.
    const seen = new Set<string>();
    const failFirst = await startReceiver({
      answer: (hit) => {
        const id = String(hit.headers["webhook-id"]);
        if (seen.has(id)) return 200;
        seen.add(id);
        return 500;
      },
    });
    receiver = failFirst;
    const hooked = await post(a, "/api/webhooks", { url: failFirst.url, events: ["action.created"] });
    expect(hooked.status).toBe(200);
    const half = Array.from({ length: EVENTS / 2 }, (_, i) => ({ title: `Two processes ${i}` }));
    const writes = await Promise.all([post(a, "/api/mcp/actions", { actions: half }), post(b, "/api/mcp/actions", { actions: half })]);
    expect(writes.map((w) => w.status)).toEqual([200, 200]);

    // Retries are 5 s after a failure (src/lib/outbox-pass.ts); both deliverers poll every second.
    const delivered = () =>
      db.all<{ event_id: string; status: string; attempts: number }>("SELECT event_id, status, attempts FROM webhook_deliveries");
    expect(await waitFor(() => seen.size === EVENTS && failFirst.hits.length >= 2 * EVENTS, 40_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a second send would come now
    const rows = await delivered();
    expect(rows).toHaveLength(EVENTS);
    expect(rows.every((r) => r.status === "delivered" && r.attempts === 2)).toBe(true);
    const perId = new Map<string, number>();
    for (const hit of failFirst.hits) perId.set(String(hit.headers["webhook-id"]), (perId.get(String(hit.headers["webhook-id"])) ?? 0) + 1);
    // One failed and one acknowledged attempt per event: never two sends of one attempt.
    expect([...perId.values()]).toEqual(Array(EVENTS).fill(2));
  }, 60_000);

  it("loses no acknowledged write when one process is killed with SIGKILL in the middle of writes", async () => {
    const [a, b] = servers as [SpawnedServer, SpawnedServer];
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (server: SpawnedServer, n: number) => {
      for (let i = 0; !stop && i < 200; i++) {
        try {
          const res = await post(server, "/api/mcp/actions", { title: `Kill ${n}-${i}` });
          if (res.status === 200) acknowledged.push(((await res.json()) as { actionId: string }).actionId);
          else await res.arrayBuffer();
        } catch {
          if (server === a) return; // the killed process: its connection is gone
        }
      }
    };
    const running = [writer(a, 0), writer(a, 1), writer(b, 2), writer(b, 3)];
    expect(await waitFor(() => acknowledged.length >= 40, 20_000)).toBe(true);
    await a.kill();
    const atKill = acknowledged.length;
    expect(await waitFor(() => acknowledged.length >= atKill + 20, 20_000)).toBe(true);
    stop = true;
    await Promise.all(running);
    // Every write either process answered 200 is stored, read back through the survivor.
    const stored = new Set((await db.all<{ id: string }>("SELECT id FROM actions WHERE title LIKE 'Kill %'")).map((r) => r.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const survivor = await fetch(`${b.url}/api/mcp/actions/${acknowledged[0]}`, { headers: { Authorization: `Bearer ${key}` } });
    expect(survivor.status).toBe(200);
  }, 60_000);
});
