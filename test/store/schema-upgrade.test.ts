/**
 * A version-1 database upgraded in place (every step, issue 10's index changes among them) ends with exactly the indexes
 * (columns, directions, partial conditions) a fresh database gets from schema.sql.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSchema } from "../../src/boot.ts";
import { type Db, openStore } from "../../src/store/db.ts";
import { migrate, migrations, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { openVersion1Store } from "../helpers/schema-v1.ts";
import { tempDir } from "../helpers/server.ts";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function indexes(db: Db): Promise<string[]> {
  const rows = (await db.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"))
    .rows;
  const out: string[] = [];
  for (const r of rows) {
    const cols = (await db.execute(`SELECT name, desc FROM pragma_index_xinfo('${r.name}') WHERE key = 1 ORDER BY seqno`)).rows;
    const where = /\bWHERE\b(.*)$/is.exec(String(r.sql))?.[1]?.trim() ?? "";
    out.push(
      `${r.name} ON ${r.tbl_name} (${cols.map((c) => `${c.name}${c.desc ? " DESC" : ""}`).join(", ")})${where ? ` WHERE ${where}` : ""}`,
    );
  }
  return out;
}

describe("schema upgrade from version 1", () => {
  it("upgrades a version-1 database to the indexes of a fresh one", async () => {
    const fresh = await openStore({ url: `file:${join(tmp.dir, "fresh.db")}` });
    await migrate(fresh, readSchema());
    const expected = await indexes(fresh);
    fresh.close();

    // A database as version 1 shipped it: the new indexes absent, the changed ones in their version-1 shape.
    const old = await openVersion1Store(join(tmp.dir, "old.db"));
    expect(await indexes(old)).not.toEqual(expected);

    expect(await migrate(old, readSchema())).toBe(SCHEMA_VERSION);
    expect(await indexes(old)).toEqual(expected);
    old.close();
  });

  it("folds issue 14's deactivations and reset links into users.deactivated_at and sign_in_links (step 7), keeping what they held", async () => {
    const db = await openVersion1Store(join(tmp.dir, "fold.db"));
    await db.run("INSERT INTO organizations (id, name, time_zone, is_default, created_at) VALUES ('org_a', 'A', 'UTC', 1, 1)");
    for (const [id, email] of [
      ["usr_gone", "gone@example.com"],
      ["usr_kept", "kept@example.com"],
    ] as const)
      await db.run(
        "INSERT INTO users (id, org_id, email, name, password_hash, plan, created_at) VALUES (?, 'org_a', ?, 'N', 'hash', 'lite', 1)",
        [id, email],
      );
    // Up to version 6, where both issues' tables exist side by side.
    expect(
      await migrate(
        db,
        readSchema(),
        migrations.filter((m) => m.version <= 6),
      ),
    ).toBe(6);
    await db.run("INSERT INTO user_deactivations (user_id, at) VALUES ('usr_gone', 500)");
    await db.run(
      "INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at) VALUES ('h1', 'usr_kept', 10, 20, NULL)",
    );
    await db.run("INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at, used_at) VALUES ('h2', 'usr_kept', 30, 40, 35)");

    expect(await migrate(db, readSchema())).toBe(SCHEMA_VERSION);
    expect(await db.all("SELECT id, deactivated_at, password_hash FROM users ORDER BY id")).toEqual([
      { id: "usr_gone", deactivated_at: 500, password_hash: "!deactivated" },
      { id: "usr_kept", deactivated_at: null, password_hash: "hash" },
    ]);
    expect(
      await db.all("SELECT token_hash, user_id, created_at, expires_at, used_at, purpose FROM sign_in_links ORDER BY token_hash"),
    ).toEqual([
      { token_hash: "h1", user_id: "usr_kept", created_at: 10, expires_at: 20, used_at: null, purpose: "reset" },
      { token_hash: "h2", user_id: "usr_kept", created_at: 30, expires_at: 40, used_at: 35, purpose: "welcome" },
    ]);
    const tables = (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((t) => t.name);
    expect(tables.filter((t) => t === "password_resets" || t === "user_deactivations")).toEqual([]);
    db.close();
  });
});
