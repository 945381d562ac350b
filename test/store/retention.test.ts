/**
 * Bounded storage (src/docs/notes/operating.md, issue 10 item 3): regeneration keeps one standup per mode and one
 * briefing per user per day, and the retention pass deletes expired rows of every kind while
 * keeping live ones. Time comes from a ManualClock; the pass runs as the leader would run it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegenerator, type Regenerator } from "../../src/agents/regenerate.ts";
import { SIGN_IN_WINDOW } from "../../src/auth/sign-in.ts";
import { RETENTION_LEASE, retentionTask } from "../../src/background/retention.ts";
import { DAY, HOUR, MINUTE } from "../../src/lib/clock.ts";
import { runRetention } from "../../src/store/retention.ts";
import { countRows, rows } from "../helpers/agents.ts";
import { type Call, client, fastUser } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let call: Call;
let regenerator: Regenerator;
beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "1000000" } });
  call = (await client(s, "operator", ["admin"])).call;
  regenerator = createRegenerator(s.deps, { timers: false });
});
afterAll(async () => {
  await regenerator.stop();
  await s.close();
});

const exec = (sql: string, args: (string | number | null)[] = []) => s.db.execute({ sql, args });
const options = { signInWindowMs: SIGN_IN_WINDOW };

describe("regeneration keeps one current standup and briefing", () => {
  it("10,000 writes leave one standup per mode and one briefing per user and day, not one per regeneration", async () => {
    await fastUser(s); // a second user of the organization: one briefing each
    const users = await countRows(s.db, "users", "org_id = ?", [s.org.id]);
    for (let batch = 0; batch < 100; batch++) {
      const res = await call("/api/mcp/actions", {
        body: { actions: Array.from({ length: 100 }, (_, i) => ({ title: `W${batch}-${i}` })) },
      });
      expect(res.status).toBe(200);
      s.clock.advance(1_000);
      await regenerator.flush();
    }
    expect(await countRows(s.db, "actions")).toBe(10_000);
    const perMode = await rows<{ mode: string; n: number }>(s.db, "SELECT mode, count(*) AS n FROM standups GROUP BY mode");
    expect(perMode.every((r) => r.n === 1)).toBe(true);
    expect(perMode.length).toBeGreaterThanOrEqual(1);
    expect(await countRows(s.db, "briefings")).toBe(users);
    // The one kept is the latest: it counts every action written.
    const latest = await call("/api/mcp/briefing");
    expect(latest.status).toBe(200);
    expect(new Date(latest.json.generatedAt).getTime()).toBe(s.clock.now());

    // The next day starts a new row; the previous day's stays as history.
    s.clock.advance(DAY);
    await call("/api/mcp/actions", { body: { title: "Next day" } });
    await regenerator.flush();
    expect(await countRows(s.db, "briefings")).toBe(2 * users);
  }, 120_000);
});

describe("retention pass", () => {
  it("issue 11 item 7: sign-in failures past their window are deleted, recent ones kept", async () => {
    const now = s.clock.now();
    for (let i = 0; i < 30; i++)
      await exec("INSERT INTO sign_in_failures (email, failed_at) VALUES (?, ?)", [
        `nobody${i}@example.com`,
        now - SIGN_IN_WINDOW - i * MINUTE,
      ]);
    await exec("INSERT INTO sign_in_failures (email, failed_at) VALUES (?, ?)", ["recent@example.com", now - MINUTE]);
    const deleted = await runRetention(s.db, now, { ...options, batch: 7 });
    expect(deleted.sign_in_failures).toBe(30);
    expect(await rows(s.db, "SELECT email FROM sign_in_failures")).toEqual([{ email: "recent@example.com" }]);
  });

  it("deletes expired rows of each kind in bounded batches and keeps live ones", async () => {
    const now = s.clock.now();
    const user = await fastUser(s);
    const hour = now - (now % HOUR);
    await exec("DELETE FROM quota_windows");
    await exec("INSERT INTO quota_windows (user_id, window_start, used) VALUES (?, ?, 1), (?, ?, 1)", [
      user.id,
      hour - HOUR,
      user.id,
      hour,
    ]);
    await exec(
      "INSERT INTO sessions (id, user_id, csrf_token, created_at, expires_at) VALUES ('s-old', ?, 'c', ?, ?), ('s-live', ?, 'c', ?, ?)",
      [user.id, now - 2 * DAY, now - 1, user.id, now, now + DAY],
    );
    const code =
      "INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, resource, scopes, expires_at) VALUES (?, 'g', 'c', 'r', 'x', 'r', 's', ?)";
    await exec(code, ["code-old", now - 1]);
    await exec(code, ["code-live", now + MINUTE]);
    const token =
      "INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, resource, created_at, expires_at) VALUES (?, 'g', 'refresh', 's', 'r', ?, ?)";
    await exec(token, ["tok-old", now - DAY, now - 1]);
    await exec(token, ["tok-live", now, now + DAY]);
    await exec("INSERT INTO setup_tokens (token_hash, created_at, used_at) VALUES ('setup-used', ?, ?)", [now - DAY, now - DAY]);

    const delivery = `INSERT INTO webhook_deliveries (webhook_id, event_id, event, payload, status, created_at, updated_at)
                      VALUES ('whk', ?, 'action.created', '{}', ?, ?, ?)`;
    await exec(delivery, ["evt-old-done", "delivered", now - 91 * DAY, now - 91 * DAY]);
    await exec(delivery, ["evt-old-pending", "pending", now - 91 * DAY, now - 91 * DAY]);
    await exec(delivery, ["evt-recent", "delivered", now - 10 * DAY, now - 10 * DAY]);

    const runRow = "INSERT INTO agent_runs (id, org_id, agent_id, status, started_at, finished_at) VALUES (?, ?, 'scout', ?, ?, ?)";
    const old = now - 100 * DAY;
    await exec(runRow, ["run_a_ok_older", s.org.id, "ok", old, old + 1]);
    await exec(runRow, ["run_b_ok_latest", s.org.id, "ok", old + 10, old + 11]);
    await exec(runRow, ["run_c_error_only", s.org.id, "error", old + 20, old + 21]);
    await exec(runRow, ["run_d_error_older", s.org.id, "error", old, old + 1]);
    await exec(
      "INSERT INTO agent_runs (id, org_id, agent_id, status, started_at, finished_at) VALUES ('run_e_recent', ?, 'pulse', 'ok', ?, ?)",
      [s.org.id, now - DAY, now - DAY],
    );

    // Standups 40 days ago: three in one day (one kept), one on another day (kept); recent ones all kept.
    const day40 = now - 40 * DAY - ((now - 40 * DAY) % DAY);
    const standup = "INSERT INTO standups (id, org_id, mode, generated_at, body) VALUES (?, ?, 'morning', ?, '{}')";
    await exec(standup, ["std_1", s.org.id, day40 + HOUR]);
    await exec(standup, ["std_2", s.org.id, day40 + 2 * HOUR]);
    await exec(standup, ["std_3_kept", s.org.id, day40 + 3 * HOUR]);
    await exec(standup, ["std_4_kept", s.org.id, day40 - HOUR]);
    await exec(standup, ["std_5_recent", s.org.id, now - DAY]);
    await exec(standup, ["std_6_recent", s.org.id, now - DAY + 1]);
    const briefing = "INSERT INTO briefings (id, org_id, user_id, generated_at, body) VALUES (?, ?, ?, ?, '{}')";
    await exec(briefing, ["brf_1", s.org.id, user.id, day40 + HOUR]);
    await exec(briefing, ["brf_2_kept", s.org.id, user.id, day40 + 2 * HOUR]);
    await exec(briefing, ["brf_3_recent", s.org.id, user.id, now - HOUR]);

    const deleted = await runRetention(s.db, now, { ...options, batch: 1 });
    expect(deleted).toMatchObject({
      quota_windows: 1,
      sessions: 1,
      oauth_codes: 1,
      oauth_tokens: 1,
      setup_tokens: 1,
      webhook_deliveries: 1,
      agent_runs: 2,
      standups: 2,
      briefings: 1,
    });
    expect(await rows(s.db, "SELECT window_start FROM quota_windows")).toEqual([{ window_start: hour }]);
    expect(await rows(s.db, "SELECT id FROM sessions WHERE id LIKE 's-%'")).toEqual([{ id: "s-live" }]);
    expect(await rows(s.db, "SELECT code_hash FROM oauth_codes")).toEqual([{ code_hash: "code-live" }]);
    expect(await rows(s.db, "SELECT token_hash FROM oauth_tokens")).toEqual([{ token_hash: "tok-live" }]);
    expect(await rows(s.db, "SELECT event_id FROM webhook_deliveries WHERE webhook_id = 'whk' ORDER BY event_id")).toEqual([
      { event_id: "evt-old-pending" },
      { event_id: "evt-recent" },
    ]);
    expect(await rows(s.db, "SELECT id FROM agent_runs WHERE id LIKE 'run\\__\\_%' ESCAPE '\\' ORDER BY id")).toEqual([
      { id: "run_b_ok_latest" },
      { id: "run_c_error_only" },
      { id: "run_e_recent" },
    ]);
    expect(await rows(s.db, "SELECT id FROM standups WHERE id LIKE 'std\\__%' ESCAPE '\\' AND length(id) < 15 ORDER BY id")).toEqual([
      { id: "std_3_kept" },
      { id: "std_4_kept" },
      { id: "std_5_recent" },
      { id: "std_6_recent" },
    ]);
    expect(await rows(s.db, "SELECT id FROM briefings WHERE user_id = ? ORDER BY id", [user.id])).toEqual([
      { id: "brf_2_kept" },
      { id: "brf_3_recent" },
    ]);

    // A second pass finds nothing more.
    const again = await runRetention(s.db, now, options);
    expect(Object.values(again).every((n) => n === 0)).toBe(true);
  });

  it("runs as a background task on the lease holder only, and hands the lease back when it stops", async () => {
    const now = s.clock.now();
    await exec("INSERT INTO sign_in_failures (email, failed_at) VALUES ('task@example.com', ?)", [now - 2 * SIGN_IN_WINDOW]);
    // Another process holds the lease: this one skips the pass.
    await exec(
      "INSERT INTO leases (name, holder, expires_at) VALUES (?, 'other-process', ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
      [RETENTION_LEASE, now + HOUR],
    );
    const follower = retentionTask(options).start(s.deps);
    await follower.stop();
    expect(await countRows(s.db, "sign_in_failures", "email = 'task@example.com'")).toBe(1);
    // The lease lapses: the next process to start takes it, deletes, and releases it on stop.
    s.clock.advance(HOUR + 1);
    const leader = retentionTask(options).start(s.deps);
    await leader.stop();
    expect(await countRows(s.db, "sign_in_failures", "email = 'task@example.com'")).toBe(0);
    expect(await countRows(s.db, "leases", "name = ?", [RETENTION_LEASE])).toBe(0);
  });
});
