/**
 * The memory an idle `subscriptions/listen` stream (MCP 2026-07-28) costs the server: part of
 * scripts/bench-mcp.ts. The parent opens BENCH_SUBSCRIPTIONS (default 200) streams, as many users
 * as the per-user bound (src/mcp/subscriptions.ts) requires, waits for every acknowledgement, and
 * reads the server's heap and RSS after a full GC (`--expose-gc` in the server) before and after;
 * the difference divided by the number of streams is the cost of one. Streams are closed after.
 */
import { generateApiKey } from "../src/auth/api-keys.ts";
import { loadConfig } from "../src/config.ts";
import { MAX_STREAMS_PER_USER } from "../src/mcp/subscriptions.ts";
import { insertApiKey } from "../src/store/auth/api-keys.ts";
import { createUser } from "../src/store/auth/users.ts";
import { openStore } from "../src/store/db.ts";
import { ensureDefaultOrgAndAgents } from "../src/store/orgs/orgs.ts";
import type { BenchServer } from "./bench-lib.ts";

export const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 200);

export interface MemoryReading {
  heapUsed: number;
  rss: number;
}

/** Server side: GET /bench-memory collects garbage (twice: weak references and finalizers) and reads the process's memory. */
export function readMemory(): Response {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return new Response("start the server with --expose-gc", { status: 500 });
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return Response.json({ heapUsed, rss } satisfies MemoryReading);
}

/** API keys of `count` operator-plan users, written straight into the server's database. */
async function keysFor(databasePath: string, count: number): Promise<string[]> {
  const url = `file:${databasePath}`;
  const db = await openStore({ url });
  try {
    const now = Date.now();
    const org = await ensureDefaultOrgAndAgents(db, loadConfig({ DATABASE_URL: url }).defaultTimeZone, now);
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const user = await createUser(
        db,
        { orgId: org.id, email: `listener${i}@example.com`, name: `Listener ${i}`, passwordHash: "unusable", plan: "operator" },
        now,
      );
      const { key, hash } = generateApiKey();
      await insertApiKey(db, { hash, userId: user.id, name: "listen bench", scopes: ["admin"] }, now);
      keys.push(key);
    }
    return keys;
  } finally {
    db.close();
  }
}

/** Opens one stream and resolves once its acknowledgement arrived; `close` ends it from this side. */
async function openStream(url: string, key: string, id: number): Promise<() => void> {
  const abort = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: {
        notifications: { resourceSubscriptions: ["crew://briefing", "crew://agents"], toolsListChanged: true },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  if (!res.body || !res.headers.get("content-type")?.includes("text/event-stream")) {
    throw new Error(`subscriptions/listen answered ${res.status}: ${await res.text()}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("notifications/subscriptions/acknowledged")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the stream ended before its acknowledgement");
    text += decoder.decode(value, { stream: true });
  }
  // Keep reading (and dropping) keep-alives so the stream stays healthy while idle.
  void (async () => {
    try {
      while (!(await reader.read()).done) {}
    } catch {}
  })();
  return () => abort.abort();
}

const memory = async (url: string) => (await (await fetch(`${url}/bench-memory`)).json()) as MemoryReading;

/** The figure: bytes of heap and of RSS per idle stream, with `count` streams open at once. */
export async function measureIdleSubscriptions(server: BenchServer, count = SUBSCRIPTIONS) {
  const keys = await keysFor(server.databasePath, Math.ceil(count / MAX_STREAMS_PER_USER));
  // Warm-up: the code paths of a stream loaded and compiled before the baseline.
  for (const close of await Promise.all(keys.slice(0, 2).map((key, i) => openStream(server.url, key, i + 1)))) close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const before = await memory(server.url);
  const closers: (() => void)[] = [];
  for (let i = 0; i < count; i++) closers.push(await openStream(server.url, keys[Math.floor(i / MAX_STREAMS_PER_USER)] ?? "", i + 1));
  const after = await memory(server.url);
  for (const close of closers) close();
  return { count, heapPerStream: (after.heapUsed - before.heapUsed) / count, rssPerStream: (after.rss - before.rss) / count };
}
