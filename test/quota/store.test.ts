/**
 * The quota store: takes that arrive in one turn are coalesced into one statement, and the
 * result is exactly what one take at a time would give (units handed out once, none beyond the limit).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { HOUR } from "../../src/lib/clock.ts";
import type { Db } from "../../src/store/db.ts";
import { createQuotaStore, type QuotaStore } from "../../src/store/quota/quota.ts";
import { databaseEnv, TEST_ENGINE, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

const temp = tempDir("crew-quota-store-");
let db: Db;
let quota: QuotaStore;
const WINDOW = 10 * HOUR;

beforeAll(async () => {
  const url = await testDatabaseUrl(temp.dir);
  db = (await prepareDatabase(url, loadConfig(databaseEnv(url)), Date.now())).db;
  quota = createQuotaStore(db);
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

const takes = (userId: string, n: number, limit: number) => Promise.all(Array.from({ length: n }, () => quota.take(userId, WINDOW, limit)));

describe("takeQuota", () => {
  it("hands out each unit once when several arrive together", async () => {
    expect(await takes("usr_a", 3, 5)).toEqual([1, 2, 3]);
    // Four more, two left: a batch that does not fit falls back to single takes.
    expect(await takes("usr_a", 4, 5)).toEqual([4, 5, null, null]);
    expect(await takes("usr_a", 2, 5)).toEqual([null, null]);
  });

  it("admits up to the limit from a first batch larger than the limit", async () => {
    expect(await takes("usr_b", 7, 4)).toEqual([1, 2, 3, 4, null, null, null]);
  });

  it("keeps users and windows apart within one turn", async () => {
    const [c, d, later] = await Promise.all([takes("usr_c", 2, 3), takes("usr_d", 3, 3), quota.take("usr_c", WINDOW + HOUR, 3)]);
    expect(c).toEqual([1, 2]);
    expect(d).toEqual([1, 2, 3]);
    expect(later).toBe(1);
    const rows = await db.execute(
      "SELECT user_id, window_start, used FROM quota_windows WHERE user_id IN ('usr_c', 'usr_d') ORDER BY 1, 2",
    );
    expect(rows.rows.map((r) => [r.user_id, r.window_start, r.used])).toEqual([
      ["usr_c", WINDOW, 2],
      ["usr_c", WINDOW + HOUR, 1],
      ["usr_d", WINDOW, 3],
    ]);
  });
});

describe("the counters store", () => {
  it("holds the quota windows: on PostgreSQL its own connections, whose commits do not wait for the WAL flush", async () => {
    if (TEST_ENGINE === "sqlite") {
      // WAL with synchronous=NORMAL never waits for a flush at commit: the one store serves.
      expect(db.counters()).toBe(db);
      return;
    }
    const setting = (s: Db) =>
      s.one<{ setting: string; source: string }>("SELECT setting, source FROM pg_settings WHERE name = 'synchronous_commit'");
    expect(await setting(db.counters())).toEqual({ setting: "off", source: "client" });
    expect((await setting(db))?.source).not.toBe("client");
    // What the counters store commits, the main store reads at once.
    await quota.take("counted-user", WINDOW, 5);
    expect(await db.one("SELECT used FROM quota_windows WHERE user_id = 'counted-user'")).toEqual({ used: 1 });
  });
});
