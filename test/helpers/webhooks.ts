/**
 * Webhook test helpers: a real HTTP receiver on loopback that records every request and answers
 * with the statuses a test scripts, Standard Webhooks verification at a chosen time (the package
 * checks the timestamp against the wall clock; tests run on a ManualClock), a subscription call,
 * and a second "process" (another connection and deps) on a test server's database (either engine).
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Webhook } from "standardwebhooks";
import { expect, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { AppDeps } from "../../src/deps.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { resolveDeps } from "../../src/resolve-deps.ts";
import { openStore } from "../../src/store/db.ts";
import { TEST_SECRET } from "./database.ts";
import type { Call } from "./rest.ts";
import type { TestServer } from "./server.ts";
import { freePort } from "./spawn.ts";

export interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  /** Statuses to answer with, in order; once used up, `fallback`. */
  script: number[];
  fallback: number;
  /** Resolves once `count` requests have arrived in all. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/** `hang`: record requests but never answer (a receiver that takes too long); `answer`: the status for each request, decided by it. */
export async function startReceiver(
  options: { script?: number[]; fallback?: number; location?: string; hang?: boolean; answer?: (hit: Hit) => number } = {},
): Promise<Receiver> {
  const hits: Hit[] = [];
  const waiters: { count: number; resolve(): void }[] = [];
  const receiver = { hits, script: [...(options.script ?? [])], fallback: options.fallback ?? 200 } as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      hits.push({ headers: req.headers, body, json });
      for (const w of waiters.filter((w) => hits.length >= w.count)) w.resolve();
      if (options.hang) return;
      const status = options.answer?.(hits.at(-1) as Hit) ?? receiver.script.shift() ?? receiver.fallback;
      res.writeHead(status, status >= 300 && status < 400 && options.location ? { Location: options.location } : {});
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.received = (count) =>
    hits.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The three signature headers of a hit, as the verifier takes them. */
export const signatureHeaders = (hit: Hit) => ({
  "webhook-id": String(hit.headers["webhook-id"]),
  "webhook-timestamp": String(hit.headers["webhook-timestamp"]),
  "webhook-signature": String(hit.headers["webhook-signature"]),
});

/** `new Webhook(secret).verify(body, headers)` with the wall clock set to `atMs` (its 5-minute window). */
export function verifyAt(secret: string, hit: Hit, atMs: number): unknown {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(atMs);
  try {
    return new Webhook(secret).verify(hit.body, signatureHeaders(hit));
  } finally {
    vi.useRealTimers();
  }
}

export async function subscribe(call: Call, url: string, events: string[] = ["action.created"], description?: string) {
  const res = await call("/api/webhooks", { body: { url, events, ...(description ? { description } : {}) } });
  if (res.status !== 200) throw new Error(`subscribe failed: ${res.status} ${res.text}`);
  return res.json as { id: string; url: string; events: string[]; secret: string };
}

/** Another process on the same database: its own connection, the same config, any clock. */
export async function secondInstance(
  s: TestServer,
  clock: Clock = s.clock,
  config: Partial<Config> = {},
): Promise<AppDeps & { close(): void }> {
  const db = await openStore({ url: s.config.databaseUrl });
  const deps = resolveDeps({ db, config: { ...s.config, ...config }, clock, log: silentLogger });
  return { ...deps, close: () => db.close() };
}

export interface DeliveryRow {
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  event_id: string;
}

export const deliveryRows = (s: TestServer, webhookId: string) =>
  s.db.all<DeliveryRow>(
    "SELECT status, attempts, next_attempt_at, last_status, last_error, event_id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY event_id",
    [webhookId],
  );

/**
 * An error envelope outside /api/mcp (no API-Version there, src/docs/notes/rest-api.md): status, code, request id,
 * docs link. Returns the body.
 */
export function expectApiError(res: { status: number; json: any; headers: Headers }, status: number, code: string): any {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status, error: code });
  expect(res.json.request_id).toBe(res.headers.get("x-request-id"));
  expect(res.json.docs_url).toMatch(new RegExp(`/docs/errors#${code}$`));
  expect(res.headers.get("api-version")).toBeNull();
  return res.json;
}

export interface FileInstance {
  url: string;
  deps: AppDeps;
  close(): Promise<void>;
}

/** An app instance serving an existing database (file or PostgreSQL) over loopback HTTP (a "process" that can stop and restart). */
export async function serveFile(databaseUrl: string, clock: Clock): Promise<FileInstance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    BASE_URL: url,
    WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "silent",
    CREW_SECRET: TEST_SECRET,
  });
  const db = await openStore({ url: databaseUrl });
  const deps = resolveDeps({ db, config, clock, log: silentLogger });
  const app = createApp(deps);
  const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  return {
    url,
    deps,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}
