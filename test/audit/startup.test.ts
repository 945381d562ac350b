/**
 * src/docs/notes/running.md: a bad configuration stops the process with one line naming the variable — values
 * that parse but cannot work (a HOST that is not an address, a BASE_URL with a path, a port in
 * use, a database that cannot be opened) included. Real processes for what only a process shows.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startupFailure } from "../../src/boot.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { ROOT, runCrew } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";

const problem = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
};

/** `node --import tsx src/serve.ts` (what `npm start` runs) until it exits by itself. */
function serveUntilExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/serve.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("configuration values that parse but cannot work", () => {
  it("HOST must be a host name or an IP address; [::1] is read as ::1", () => {
    expect(problem({ HOST: "not a host" })).toBe('HOST must be a host name or an IP address such as 0.0.0.0, got "not a host"');
    expect(problem({ HOST: "http://0.0.0.0" })).toMatch(/^HOST must be/);
    for (const host of ["0.0.0.0", "localhost", "crew.internal", "::", "::1"]) expect(loadConfig({ HOST: host }).host).toBe(host);
    expect(loadConfig({ HOST: "[::1]" }).host).toBe("::1");
  });

  it("BASE_URL must be an origin: no path, no user", () => {
    expect(problem({ BASE_URL: "https://example.com/crew" })).toBe(
      'BASE_URL must be scheme, host and port only (no path or user), got "https://example.com/crew"',
    );
    expect(problem({ BASE_URL: "https://admin:pw@example.com" })).toMatch(/^BASE_URL must be scheme, host and port only/);
    expect(loadConfig({ BASE_URL: "https://crew.example.com/" }).baseUrl).toBe("https://crew.example.com");
  });

  it("DATABASE_URL must name a file: file: alone would be a temporary database", () => {
    expect(problem({ DATABASE_URL: "file:" })).toBe('DATABASE_URL must name a file, e.g. file:data/crew.db, got "file:"');
    expect(problem({ DATABASE_URL: "file://" })).toMatch(/^DATABASE_URL must name a file/);
    expect(loadConfig({ DATABASE_URL: "file:///var/lib/crew/crew.db" }).databaseUrl).toBe("file:///var/lib/crew/crew.db");
  });

  it("PostgreSQL needs CREW_SECRET and backs up with pg_dump; its password is never shown back", () => {
    const pg = "postgres://crew:hunter2@db.internal:5432/crew";
    expect(problem({ DATABASE_URL: pg })).toMatch(/^CREW_SECRET \(or CREW_SECRET_FILE\) must be set when DATABASE_URL is PostgreSQL/);
    const secret = "s".repeat(32);
    expect(loadConfig({ DATABASE_URL: pg, CREW_SECRET: secret }).databaseUrl).toBe(pg);
    expect(loadConfig({ DATABASE_URL: pg.replace("postgres:", "postgresql:"), CREW_SECRET: secret }).secret).toBe(secret);
    expect(problem({ DATABASE_URL: pg, CREW_SECRET: secret, BACKUP_DIR: "/backups" })).toMatch(
      /^BACKUP_DIR is for SQLite databases: .*pg_dump/,
    );
    const refused = problem({ DATABASE_URL: "mysql://crew:hunter2@db/crew" });
    expect(refused).toMatch(/^DATABASE_URL must start with file:, postgres:\/\//);
    expect(refused).not.toContain("hunter2");
  });

  it("an unexpected start-up error is one line; the stack only with LOG_LEVEL=debug", () => {
    const error = new Error("boom\nsecond line");
    expect(startupFailure(error, {})).toBe("crew: cannot start: boom");
    expect(startupFailure(error, { LOG_LEVEL: "debug" })).toContain("\n    at ");
    expect(startupFailure(new ConfigError("PORT must be a whole number"), {})).toBe("crew: PORT must be a whole number");
  });
});

describe("start-up failures of a real process", () => {
  it("a port in use, or a database that cannot be opened, stops npm start with one line naming the variable", async () => {
    const { dir, cleanup } = tempDir();
    const blocker = createServer();
    try {
      const port = await new Promise<number>((resolve) => {
        blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as { port: number }).port));
      });
      // A regular file where the database folder should be.
      const notAFolder = join(dir, "file");
      writeFileSync(notAFolder, "");
      const secret = "s".repeat(40);
      const [busy, database, secretFile, migrate] = await Promise.all([
        serveUntilExit({ PORT: String(port), DATABASE_URL: `file:${join(dir, "crew.db")}`, CREW_SECRET: secret }),
        serveUntilExit({ PORT: "0", DATABASE_URL: `file:${notAFolder}/crew.db`, CREW_SECRET: secret }),
        serveUntilExit({ PORT: "0", DATABASE_URL: `file:${notAFolder}/crew.db` }),
        runCrew(["migrate"], { DATABASE_URL: `file:${notAFolder}/crew.db` }),
      ]);
      expect(busy).toEqual({ code: 1, stderr: `crew: PORT ${port} is already in use on 127.0.0.1; set PORT to a free port\n` });
      expect(database.code).toBe(1);
      expect(database.stderr).toMatch(new RegExp(`^crew: DATABASE_URL file:${notAFolder}/crew\\.db cannot be opened: [^\\n]+\\n$`));
      expect(secretFile.code).toBe(1);
      expect(secretFile.stderr).toMatch(
        /^crew: CREW_SECRET is unset and [^\n]+crew-secret \(beside DATABASE_URL\) cannot be made: [^\n]+\n$/,
      );
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toMatch(/^crew migrate: DATABASE_URL file:[^\n]+ cannot be opened: [^\n]+\n$/);
    } finally {
      blocker.close();
      cleanup();
    }
  });
});
