/**
 * `crew eval` end to end against scripted models on loopback (a real model is outside this
 * machine's reach): a correct one passes (exit 0, every expected fact, evidence resolving), one that
 * obeys chosen injection cases fails (exit 1) and the scorecard names exactly those cases; the
 * organization's database is unchanged but for the stored scorecard (row counts and a checksum of
 * every table), and the throwaway databases are gone afterwards. Without a model: a clear error.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/agents/eval/run.ts";
import { type EvalSet, loadSets } from "../../src/agents/eval/sets.ts";
import { loadConfig } from "../../src/config.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { upsertContact } from "../../src/store/contacts/contacts.ts";
import type { Db } from "../../src/store/db.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { evalScript, handlesIn } from "../helpers/eval-models.ts";
import { modelEnv, type ScriptedModel, startScriptedModel } from "../helpers/scripted-model.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

/** Row counts and a SHA-256 of the sorted rows of every table but eval_runs. */
async function fingerprint(db: Db): Promise<Record<string, { rows: number; sha256: string }>> {
  const tables = await db.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const out: Record<string, { rows: number; sha256: string }> = {};
  for (const { name } of tables) {
    if (name === "eval_runs") continue;
    const rows = (await db.all<Record<string, unknown>>(`SELECT * FROM "${name}"`)).map((r) => JSON.stringify(r)).sort();
    out[name] = { rows: rows.length, sha256: createHash("sha256").update(rows.join("\n")).digest("hex") };
  }
  return out;
}

describe("crew eval (scripted models on loopback)", () => {
  const temp = tempDir("crew-eval-test-");
  const evalTmp = join(temp.dir, "tmp");
  const previousTmp = process.env.TMPDIR;
  let model: ScriptedModel;
  let sets: EvalSet[];
  let db: Db;
  let env: Record<string, string>;
  const run = async (args: string[], extra: Record<string, string> = {}) => runCliInProcess(["eval", ...args], { ...env, ...extra });

  beforeAll(async () => {
    mkdirSync(evalTmp);
    // The harness makes its throwaway databases under the system's temporary folder: this test's own.
    process.env.TMPDIR = evalTmp;
    sets = await loadSets();
    model = await startScriptedModel(evalScript(sets));
    env = { DATABASE_URL: `file:${join(temp.dir, "org.db")}`, CREW_SECRET: "s".repeat(43), LOG_LEVEL: "silent" };
    const prepared = await prepareDatabase(env.DATABASE_URL as string, loadConfig(env), systemClock.now());
    db = prepared.db;
    await upsertContact(
      db,
      prepared.org.id,
      "con_01JORGDATA0000000000000000",
      { name: "Real Customer", email: "real@customer.example" },
      "test",
      1,
    );
  });
  afterAll(async () => {
    process.env.TMPDIR = previousTmp;
    db?.close();
    await model?.close();
    temp.cleanup();
  });

  it("without a model: a clear error, exit 1, nothing stored", async () => {
    const before = await fingerprint(db);
    const result = await run([]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(/No model is connected: set CREW_MODEL_\* or save one in Settings → Model/);
    expect(await fingerprint(db)).toEqual(before);
  });

  it("a correct model: exit 0, every expected fact found, no injection obeyed; the organization's data unchanged, eval databases removed", async () => {
    const before = await fingerprint(db);
    const started = performance.now();
    const result = await run(["--json"], modelEnv(model));
    const wall = performance.now() - started;
    expect(result.stderr).toBe("");
    const report = JSON.parse(result.stdout) as EvalReport;
    expect(result.code).toBe(0);
    expect(report.passed).toBe(true);
    expect(report.agents.map((a) => a.agent).sort()).toEqual(
      [
        "bdr",
        "calendar",
        "compliance",
        "content",
        "corpdev",
        "finance",
        "growth",
        "inbox",
        "product",
        "research",
        "revenue",
        "sales",
      ].sort(),
    );
    for (const a of report.agents) {
      expect(a.facts, a.agent).toMatchObject({ missing: [] });
      expect(a.facts.found, a.agent).toBe(a.facts.expected);
      expect(a.facts.expected, a.agent).toBeGreaterThan(0);
      expect(a.evidence.percent, a.agent).toBe(100);
      expect(a.evidence.records, a.agent).toBeGreaterThan(0);
      expect(a.injections.obeyed, a.agent).toEqual([]);
      expect(a.forbidden, a.agent).toEqual([]);
      expect(a.validFirstTry, a.agent).toBe(a.scenarios);
      expect(a.tokensIn, a.agent).toBe(1000 * a.scenarios);
    }
    expect(report.agents.find((a) => a.agent === "inbox")?.injections.tested).toBe(17);
    expect(report.agents.find((a) => a.agent === "research")?.injections.tested).toBe(16);
    // The organization's database: every table as it was; the scorecard stored, one row per agent.
    expect(await fingerprint(db)).toEqual(before);
    const stored = await db.all<{ agent_id: string; passed: number; model: string }>(
      "SELECT agent_id, passed, model FROM eval_runs WHERE batch_id = ?",
      [report.batchId],
    );
    expect(stored).toHaveLength(12);
    expect(stored.every((r) => r.passed === 1 && r.model === "scripted-model")).toBe(true);
    expect(readdirSync(evalTmp)).toEqual([]);
    const overhead = report.scenarios.map((s) => s.overheadMs).sort((a, b) => a - b);
    console.info(
      `crew eval, instant scripted model: ${report.scenarios.length} scenarios in ${(wall / 1000).toFixed(2)} s; harness overhead per scenario median ${overhead[Math.floor(overhead.length / 2)]?.toFixed(1)} ms, max ${overhead.at(-1)?.toFixed(1)} ms`,
    );
    expect(wall).toBeLessThan(30_000);
  });

  it("a model that obeys injections: exit 1 and the scorecard names exactly the cases it obeyed", async () => {
    const obey = new Set(["m01", "m04", "m07", "m12", "f02", "f05", "f09", "f13"]);
    model.script(evalScript(sets, obey));
    const json = await run(["--json", "--set", "injections"], modelEnv(model));
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as EvalReport;
    expect(report.passed).toBe(false);
    const obeyed = Object.fromEntries(report.agents.map((a) => [a.agent, a.injections.obeyed]));
    expect(obeyed).toEqual({
      inbox: ["injections/m01", "injections/m04", "injections/m07", "injections/m12"],
      research: ["injections/f02", "injections/f05", "injections/f09", "injections/f13"],
      corpdev: ["injections/f02", "injections/f05", "injections/f09", "injections/f13"],
      compliance: ["injections/f02", "injections/f05", "injections/f09", "injections/f13"],
      content: ["injections/f02", "injections/f05", "injections/f09", "injections/f13"],
    });
    const text = await run(["--set", "injections", "--agent", "inbox"], modelEnv(model));
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("inbox: obeyed injections injections/m01, injections/m04, injections/m07, injections/m12");
    expect(text.stdout).toMatch(/^inbox +1\/1 .* 4\/17 /m);
    expect(text.stdout).toContain("FAILED");
    expect(readdirSync(evalTmp)).toEqual([]);
  });

  it("a model repeating open actions: they are merged, not stored again — 0 duplicates on the scorecard", async () => {
    const correct = evalScript(sets);
    model.script((r) => {
      const reply = correct(r) as { object: { actions?: unknown[] } };
      const cite = handlesIn(r).slice(0, 1);
      // The set's open action, twice, spelled differently: each must merge into it.
      const repeats = ["Send Kestrel Bank the revised contract", "send kestrel bank the revised contract."].map((title) => ({
        title,
        priority: "high",
        type: "follow_up",
        evidence: cite,
      }));
      return { ...reply, object: { ...reply.object, actions: [...(reply.object.actions ?? []), ...repeats] } };
    });
    const result = await run(["--json", "--set", "pipeline-review", "--agent", "sales"], modelEnv(model));
    const report = JSON.parse(result.stdout) as EvalReport;
    expect(report.scenarios[0]).toMatchObject({ status: "ok", duplicates: 0 });
    expect(report.agents[0]).toMatchObject({ duplicates: 0, passed: true });
    expect(result.code).toBe(0);
    model.script(evalScript(sets));
  });

  it("refuses an agent that is not model-backed and a set that does not exist", async () => {
    expect(await run(["--agent", "standup"], modelEnv(model))).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('"standup" is not a model-backed agent'),
    });
    expect(await run(["--set", "nope"], modelEnv(model))).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no evaluation set "nope"'),
    });
  });
});
