/**
 * Secrets at rest: the database file and folder are the owner's only, webhook signing secrets are
 * sealed with CREW_SECRET (the clear `whsec_` value never reaches the disk), and a deleted
 * subscription's bytes are overwritten (secure_delete), not left in free pages.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/cli.ts";
import { api, startServer, type TestServer, tempDir } from "../helpers/server.ts";
import { subscribe } from "../helpers/webhooks.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const databaseBytes = () => {
  const file = s.config.databaseUrl.slice("file:".length);
  return [file, `${file}-wal`]
    .filter(existsSync)
    .map((f) => readFileSync(f).toString("latin1"))
    .join("");
};

describe("issue 11 item 5: secrets at rest", () => {
  it("creates the database folder 0700 and the database file 0600", async () => {
    const temp = tempDir();
    try {
      const file = join(temp.dir, "fresh", "crew.db");
      const result = await runCliInProcess(["migrate"], { DATABASE_URL: `file:${file}`, LOG_LEVEL: "silent" });
      expect(result.code, result.stderr).toBe(0);
      expect(statSync(join(temp.dir, "fresh")).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(temp.dir, "fresh", "crew-secret")).mode & 0o777).toBe(0o600);
    } finally {
      temp.cleanup();
    }
  });

  it("never writes a webhook secret in clear, and overwrites a deleted subscription's bytes", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const call = api(s.url, key);
    const hook = await subscribe(call, "https://hooks.example.com/at-rest");
    const [row] = (await s.db.execute({ sql: "SELECT secret FROM webhooks WHERE id = ?", args: [hook.id] })).rows;
    const sealed = String(row?.secret);
    expect(sealed).toMatch(/^v1\./);
    expect(databaseBytes()).not.toContain(hook.secret);
    expect(databaseBytes()).toContain(sealed);

    expect((await call(`/api/webhooks/${hook.id}`, { method: "DELETE" })).status).toBe(200);
    await s.db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(databaseBytes()).not.toContain(sealed);
    expect(databaseBytes()).not.toContain(hook.secret);
  });
});
