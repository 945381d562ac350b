/**
 * `crew agents run <agent>|--due` (src/docs/notes/running.md): as real processes on a temp database for the
 * main paths, and through runCli in this process for help and usage errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createUser } from "../../src/store/auth/users.ts";
import type { Db } from "../../src/store/db.ts";
import { rows } from "../helpers/agents.ts";
import { runCliInProcess, runCrew } from "../helpers/cli.ts";
import { databaseEnv, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

const temp = tempDir("crew-agents-cli-");
let env: { DATABASE_URL: string; CREW_SECRET?: string };
let db: Db;

const local = (...args: string[]) => runCliInProcess(args, env);

beforeAll(async () => {
  const dbUrl = await testDatabaseUrl(temp.dir);
  env = databaseEnv(dbUrl);
  const prepared = await prepareDatabase(dbUrl, loadConfig(env), Date.now());
  db = prepared.db;
  await createUser(
    db,
    { orgId: prepared.org.id, email: "cli@example.com", name: "Cli", passwordHash: "unusable", plan: "operator" },
    Date.now(),
  );
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

describe("crew agents run", () => {
  it("runs a built-in agent once now, as a real run", async () => {
    const result = await runCrew(["agents", "run", "standup"], env);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^standup: ok \(run_[0-9A-Z]{26}\): (Morning|Evening) standup ready: /);
    expect(await rows(db, "SELECT agent_id, status FROM agent_runs")).toEqual([{ agent_id: "standup", status: "ok" }]);
    expect(await rows(db, "SELECT count(*) AS n FROM standups")).toEqual([{ n: 1 }]);
  });

  it("runs every due agent once with --due", async () => {
    const result = await runCrew(["agents", "run", "--due", "--json"], env);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.leader).toBe(true);
    // standup ran a moment ago (the test above), which covers its latest slot (unless 08:00 or 18:00 UTC passed since).
    const ran: string[] = report.ran.map((r: { agentId: string; status: string }) => `${r.agentId}:${r.status}`).sort();
    expect(ran.filter((r) => !r.startsWith("standup"))).toEqual(["briefing:ok", "dna:ok", "pulse:ok"]);
    expect(await rows(db, "SELECT count(*) AS n FROM briefings")).toEqual([{ n: 1 }]);
    expect(await rows(db, "SELECT count(*) AS n FROM leases")).toEqual([{ n: 0 }]); // handed back
  });

  it("refuses an agent that cannot run here (a model-backed one without a model, slack among them), or an unknown one, with a clear error", async () => {
    const spawned = await runCrew(["agents", "run", "slack"], env);
    expect(spawned).toEqual({
      code: 1,
      stdout: "",
      stderr: "crew agents run: agent slack did not run: Needs a model: connect one in Settings → Model.\n",
    });
    expect(await local("agents", "run", "sales")).toMatchObject({
      code: 1,
      stderr: "crew agents run: agent sales did not run: Needs a model: connect one in Settings → Model.\n",
    });
    expect(await local("agents", "run", "nobody")).toMatchObject({
      code: 2,
      stderr:
        'crew agents run: unknown agent "nobody"; agents with a built-in runner: standup, briefing, pulse, dna (see crew agents run --help)\n',
    });
    expect(await local("agents", "run")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("name the agent to run, or give --due"),
    });
    expect(await local("agents", "run", "pulse", "--due")).toMatchObject({ code: 2, stderr: expect.stringContaining("not both") });
    expect(await local("agents", "run", "pulse", "dna")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unexpected argument "dna"'),
    });
  });

  it("has --help, listed in the top help and the group help", async () => {
    const help = await local("agents", "run", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: crew agents run <agent> | crew agents run --due [--org ORG] [--json]");
    expect(help.stdout).toMatch(/^ {2}<agent> +The agent to run now \(model-backed ones need a model; slack also needs Slack\)\.$/m);
    expect(help.stdout).toMatch(/^ {2}--due +Run every agent whose scheduled slot is due/m);
    // The group's help holds each of its commands' (run, resume).
    const group = (await local("agents", "--help")).stdout;
    expect(group).toContain(help.stdout.trim());
    expect(group).toContain("Usage: crew agents resume");
    expect((await local("--help")).stdout).toMatch(/^ {2}agents run +Run a built-in agent once now/m);
  });
});
