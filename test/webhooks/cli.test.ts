/**
 * `crew webhook add` (src/docs/notes/running.md): prints the subscription and its secret once (text or --json), with
 * --help; usage errors exit 2, a refused URL exits 1. One real process (bin/crew.js, as npx runs
 * it); the rest through runCli in this process, the function bin/crew.js calls.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import type { Db } from "../../src/store/db.ts";
import { openWebhookSecret } from "../../src/webhooks/secret-at-rest.ts";
import { runCliInProcess, runCrew } from "../helpers/cli.ts";
import { databaseEnv, testDatabaseUrl } from "../helpers/database.ts";
import { prepareDatabase, tempDir } from "../helpers/server.ts";

const temp = tempDir("crew-webhook-cli-");
let dbUrl: string;
let env: Record<string, string>;
let db: Db;

const local = (args: string[], extraEnv: Record<string, string> = {}) => runCliInProcess(args, { ...env, ...extraEnv });

beforeAll(async () => {
  dbUrl = await testDatabaseUrl(temp.dir);
  env = { ...databaseEnv(dbUrl), LOG_LEVEL: "silent" };
  db = (await prepareDatabase(dbUrl, loadConfig(env), Date.now())).db;
});
afterAll(() => {
  db.close();
  temp.cleanup();
});

/** The configuration with the CLI's secret: generated beside a database file, given on PostgreSQL (no data folder). */
const withSecret = () => ({
  ...loadConfig(env),
  secret: env.CREW_SECRET ?? readFileSync(join(dirname(dbUrl.slice("file:".length)), "crew-secret"), "utf8").trim(),
});

const stored = (id: string) =>
  db.all<{ url: string; events: string; secret: string; created_by: string; description: string | null }>(
    "SELECT url, events, secret, created_by, description FROM webhooks WHERE id = ?",
    [id],
  );

describe("crew webhook add", () => {
  it("--json prints the subscription with its secret, as a real process", async () => {
    const result = await runCrew(
      ["webhook", "add", "--url", "https://hooks.example.com/crew", "--events", "action.created, standup.ready", "--json"],
      env,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: "https://hooks.example.com/crew",
      events: ["action.created", "standup.ready"],
      description: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      createdAt: expect.any(String),
    });
    const [row] = await stored(created.id);
    expect(row).toEqual({
      url: created.url,
      events: '["action.created","standup.ready"]',
      secret: expect.stringMatching(/^v1\./),
      created_by: "cli",
      description: null,
    });
    // issue 11 item 5: sealed at rest with the generated secret, bound to the subscription.
    expect(await openWebhookSecret(withSecret(), created.id, String(row?.secret))).toBe(created.secret);
  });

  it("prints id, url, events and secret as text, the once-only note on stderr", async () => {
    const result = await local([
      "webhook",
      "add",
      "--url",
      "https://b.example.com/x",
      "--events",
      "briefing.completed",
      "--description",
      "BI",
    ]);
    expect(result.code).toBe(0);
    const lines = Object.fromEntries(
      result.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/, 2) as [string, string]),
    );
    expect(Object.keys(lines)).toEqual(["id", "url", "events", "secret"]);
    expect(lines.events).toBe("briefing.completed");
    expect(result.stderr).toBe("The secret is shown only once: store it in the receiver now.\n");
    const [row] = await stored(lines.id!);
    expect(row).toMatchObject({ description: "BI" });
    expect(await openWebhookSecret(withSecret(), lines.id!, String(row?.secret))).toBe(lines.secret);
  });

  it("has --help, and refuses bad input with one line and exit code 2, a private URL with exit code 1", async () => {
    const help = await local(["webhook", "add", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: crew webhook add --url U --events a,b \[--description D\] \[--org ORG\] \[--json\]/);
    for (const flag of ["--url U", "--events a,b", "--description D", "--json", "--help"]) expect(help.stdout).toContain(flag);
    expect((await local(["--help"])).stdout).toMatch(/^ {2}webhook add +Subscribe/m);
    expect((await local(["webhook", "--help"])).stdout).toContain("Usage: crew webhook add");

    const usage: [string[], string][] = [
      [["webhook", "add", "--events", "action.created"], "missing --url"],
      [["webhook", "add", "--url", "https://a.example.com"], "missing --events"],
      [["webhook", "add", "--url", "ftp://a.example.com", "--events", "action.created"], "--url: Must be an http:// or https:// URL."],
      [
        ["webhook", "add", "--url", "https://a.example.com", "--events", "action.created,deal.won"],
        '--events ("deal.won"): Must be one of',
      ],
      [["webhook", "add", "--url", "https://a.example.com", "--events", ","], "--events: Give at least one event."],
      [["webhook"], "missing subcommand"],
    ];
    for (const [args, message] of usage) {
      const result = await local(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(message);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
    const before = await db.all("SELECT id FROM webhooks");
    const refused = await local(["webhook", "add", "--url", "http://127.0.0.1:8080/", "--events", "action.created"], {
      WEBHOOK_ALLOW_PRIVATE: "false",
    });
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringMatching(/^crew webhook add: --url is refused: .*ALLOW_PRIVATE_TARGETS is off.*\n$/),
    });
    expect(await db.all("SELECT id FROM webhooks")).toEqual(before);
    const allowed = await local(["webhook", "add", "--url", "http://127.0.0.1:8080/", "--events", "action.created"], {
      WEBHOOK_ALLOW_PRIVATE: "true",
    });
    expect(allowed.code).toBe(0);
  });
});
