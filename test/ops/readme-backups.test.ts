/**
 * The README is exact (issue 33): its Backups commands run as written, in a folder laid out as a
 * fresh install (`data/crew.db`, the default DATABASE_URL), through bin/crew.js as `npx crew` runs
 * it. The restore line names the file the backup wrote (its `…` stands for the timestamp), and
 * brings back what was there at the backup.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "libsql";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runCrew } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";

const install = tempDir("crew-readme-");
afterAll(() => install.cleanup());

/** The commands of the README's fenced sh block under a heading, comments stripped. */
function readmeCommands(heading: string): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf(`### ${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

const users = () => {
  const db = new Database(join(install.dir, "data", "crew.db"), { readonly: true });
  try {
    return (db.prepare("SELECT email FROM users ORDER BY email").all() as { email: string }[]).map((u) => u.email);
  } finally {
    db.close();
  }
};

describe("the README's backup and restore", () => {
  it("work as written", async () => {
    const commands = readmeCommands("Backups");
    expect(commands).toHaveLength(2);
    const [backup, restore] = commands as [string, string];
    expect(backup).toBe("npx crew backup");
    expect(restore).toMatch(/^npx crew restore data\/backups\/crew-….db$/);

    const env = { CREW_SECRET: "readme-test-secret-readme-test-secret-0" };
    const created = await runCrew(
      ["user", "create", "--email", "kept@example.com", "--password", "correct horse battery staple"],
      env,
      undefined,
      install.dir,
    );
    expect(created.code, created.stderr).toBe(0);
    const args = (command: string) => command.replace(/^npx crew /, "").split(" ");

    const backedUp = await runCrew(args(backup), env, undefined, install.dir);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    const written = readdirSync(join(install.dir, "data", "backups"));
    expect(written).toHaveLength(1);
    const pattern = new RegExp(`^${restore.split(" ").at(-1)!.replace("data/backups/", "").replace(".db", "\\.db").replace("…", ".+")}$`);
    expect(written[0]).toMatch(pattern);

    const later = await runCrew(
      ["user", "create", "--email", "later@example.com", "--password", "correct horse battery staple"],
      env,
      undefined,
      install.dir,
    );
    expect(later.code, later.stderr).toBe(0);
    expect(users()).toEqual(["kept@example.com", "later@example.com"]);

    const restored = await runCrew(args(restore.replace(/crew-….db$/, written[0]!)), env, undefined, install.dir);
    expect(restored.code, restored.stderr).toBe(0);
    expect(users()).toEqual(["kept@example.com"]);
  }, 90_000);
});
