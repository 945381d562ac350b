/**
 * Every secret variable also reads from a file (`…_FILE`: Docker secrets, systemd credentials):
 * the file's content with its trailing newline trimmed; both forms set stop the process with one
 * line naming them.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSecretFile } from "../../src/boot.ts";
import { ConfigError, loadConfig, SECRET_VARIABLES } from "../../src/config.ts";
import { runCrew } from "../helpers/cli.ts";
import { tempDir } from "../helpers/server.ts";

const SECRET = "s".repeat(40);

describe("secrets from files", () => {
  it("reads each …_FILE, trimming one trailing newline", () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, "secret"), `${SECRET}\n`);
      writeFileSync(join(dir, "key"), "sk-from-file\r\n");
      writeFileSync(join(dir, "token"), "libsql-token");
      const config = loadConfig(
        {
          CREW_SECRET_FILE: join(dir, "secret"),
          CREW_MODEL_PROVIDER: "openai",
          CREW_MODEL: "gpt-4o-mini",
          CREW_MODEL_API_KEY_FILE: join(dir, "key"),
          DATABASE_AUTH_TOKEN_FILE: join(dir, "token"),
        },
        readSecretFile,
      );
      expect(config.secret).toBe(SECRET);
      expect(config.model?.apiKey).toBe("sk-from-file");
      expect(config.databaseAuthToken).toBe("libsql-token");
      expect(SECRET_VARIABLES).toEqual(
        expect.arrayContaining([
          "CREW_SECRET",
          "CREW_MODEL_API_KEY",
          "OIDC_CLIENT_SECRET",
          "DATABASE_AUTH_TOKEN",
          "SMTP_URL",
          "METRICS_TOKEN",
        ]),
      );
    } finally {
      cleanup();
    }
  });

  it("both forms set, or an unreadable file, is a one-line error naming the variables", () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, "secret"), SECRET);
      const both = () => loadConfig({ CREW_SECRET: SECRET, CREW_SECRET_FILE: join(dir, "secret") }, readSecretFile);
      expect(both).toThrow(ConfigError);
      expect(both).toThrow("CREW_SECRET and CREW_SECRET_FILE are both set: keep one");
      const missing = () => loadConfig({ METRICS_TOKEN_FILE: join(dir, "absent") }, readSecretFile);
      expect(missing).toThrow(/^METRICS_TOKEN_FILE names a file that cannot be read: .*absent/);
    } finally {
      cleanup();
    }
  });

  it("a real process: DATABASE_URL_FILE is followed; both forms set stop `crew serve` with one line", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const database = join(dir, "from-file.db");
      writeFileSync(join(dir, "url"), `file:${database}\n`);
      const migrated = await runCrew(["migrate"], { DATABASE_URL_FILE: join(dir, "url") });
      expect(migrated.code).toBe(0);
      expect(existsSync(database)).toBe(true);

      writeFileSync(join(dir, "secret"), SECRET);
      const refused = await runCrew(["serve"], {
        DATABASE_URL: `file:${database}`,
        PORT: "0",
        CREW_SECRET: SECRET,
        CREW_SECRET_FILE: join(dir, "secret"),
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim()).toBe("crew serve: CREW_SECRET and CREW_SECRET_FILE are both set: keep one");
    } finally {
      cleanup();
    }
  });
});
