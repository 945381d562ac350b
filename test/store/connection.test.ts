/**
 * One connection per process for a local database, with the pragmas the write path relies on
 * (WAL, synchronous=NORMAL, foreign keys, busy timeout): a pooled second connection once ran with
 * synchronous=FULL and fsynced nearly every commit.
 */
import { readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { boot } from "../../src/boot-app.ts";
import type { Db } from "../../src/store/db.ts";
import { tempDir } from "../helpers/server.ts";
import { spawnServer } from "../helpers/spawn.ts";

const temp = tempDir("crew-connection-");
afterAll(() => temp.cleanup());

/** Open file handles of a process on exactly this file (its -wal and -shm files not counted). */
function handlesOn(pid: number | "self", file: string): number {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).filter((fd) => {
    try {
      return readlinkSync(join(dir, fd)) === file;
    } catch {
      return false; // closed while listing
    }
  }).length;
}

async function pragmas(db: Db) {
  const value = async (name: string) => Object.values((await db.all<Record<string, unknown>>(`PRAGMA ${name}`))[0] ?? {})[0];
  return {
    journal_mode: await value("journal_mode"),
    synchronous: await value("synchronous"),
    foreign_keys: await value("foreign_keys"),
    busy_timeout: await value("busy_timeout"),
  };
}

describe("database connections", () => {
  it("pragmas verified on every connection the process opens", async () => {
    const file = join(temp.dir, "in-process.db");
    const booted = await boot({ DATABASE_URL: `file:${file}`, LOG_LEVEL: "silent" }, { announceSetup: false });
    try {
      for (const path of ["/healthz", "/readyz", "/api/mcp/actions"])
        await (await booted.app.fetch(new Request(`http://crew.test${path}`))).arrayBuffer();
      // Everything of this process (app, scheduler, webhook deliverer) shares the one connection checked here.
      expect(handlesOn("self", file)).toBe(1);
      expect(await pragmas(booted.db)).toEqual({ journal_mode: "wal", synchronous: 1, foreign_keys: 1, busy_timeout: 10_000 });
    } finally {
      await booted.close();
    }
  });

  it("a server process holds one connection to its database file", async () => {
    const file = join(temp.dir, "server.db");
    const server = await spawnServer({ DATABASE_URL: `file:${file}` });
    try {
      for (const path of ["/readyz", "/api/mcp/actions", "/docs"]) await (await fetch(`${server.url}${path}`)).arrayBuffer();
      expect(handlesOn(server.pid, file)).toBe(1);
    } finally {
      await server.stop();
    }
  });
});
