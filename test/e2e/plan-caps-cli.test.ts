/**
 * src/docs/notes/web-and-accounts.md: the plan is read on every request, so a downgrade caps existing keys at once. The user
 * and key are made with the real CLI, and the plan changed with it (`crew user set-plan`), on the
 * database file a running server uses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCrew } from "../helpers/cli.ts";
import { databaseEnv } from "../helpers/database.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let env: Record<string, string>;
beforeAll(async () => {
  s = await startServer();
  env = databaseEnv(s.config.databaseUrl);
});
afterAll(() => s.close());

describe("plan changes from the CLI", () => {
  it("an operator's admin key loses and regains write access with crew user set-plan", async () => {
    const created = await runCrew(
      ["user", "create", "--email", "owner@example.com", "--password", "a long password", "--plan", "operator"],
      env,
    );
    expect(created.code).toBe(0);
    const keyed = await runCrew(["key", "create", "--email", "owner@example.com", "--name", "ops", "--scopes", "admin"], env);
    expect(keyed.code).toBe(0);
    const call = api(s.url, keyed.stdout.trim());
    const post = () => call("/api/mcp/actions", { body: { title: "Renew the domain", priority: "high" } });

    expect((await post()).status).toBe(200);

    const down = await runCrew(["user", "set-plan", "--email", "owner@example.com", "--plan", "pro"], env);
    expect(down.code).toBe(0);
    const refused = await post();
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("plan_upgrade_required");
    expect(refused.json.message).toContain("operator");
    // Reads stay within the pro plan.
    expect((await call("/api/mcp/agents")).status).toBe(200);

    const up = await runCrew(["user", "set-plan", "--email", "owner@example.com", "--plan", "operator"], env);
    expect(up.code).toBe(0);
    expect((await post()).status).toBe(200);
  });
});
