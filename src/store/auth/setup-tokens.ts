/** One-time first-run setup tokens (src/docs/notes/running.md#first-start): only the token's SHA-256 is stored. */
import type { Db } from "../db.ts";

export async function insertSetupToken(db: Db, tokenHash: string, now: number): Promise<void> {
  await db.run("INSERT INTO setup_tokens (token_hash, created_at) VALUES (?, ?)", [tokenHash, now]);
}

/** True when the token is unused and no user exists yet: the setup page may be shown. */
export async function isSetupTokenUsable(db: Db, tokenHash: string): Promise<boolean> {
  const result = await db.execute({
    sql: "SELECT 1 FROM setup_tokens WHERE token_hash = ? AND used_at IS NULL AND NOT EXISTS (SELECT 1 FROM users)",
    args: [tokenHash],
  });
  return result.rows.length > 0;
}

/**
 * Claims setup: one statement marks every unused token used, but only when this token is unused
 * and no user exists. Two processes (or two tabs with two printed links) cannot both win.
 */
export async function claimSetup(db: Db, tokenHash: string, now: number): Promise<boolean> {
  const claimed = await db.run(
    `UPDATE setup_tokens SET used_at = ?
      WHERE used_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM users)
        AND EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = ? AND used_at IS NULL)`,
    [now, tokenHash],
  );
  return claimed > 0;
}
