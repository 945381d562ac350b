/** Connected integrations of a user (`integrations` table): one row per user and kind. */
import { type Db, one } from "./db.ts";

export type IntegrationKind = "calendar";

export async function hasIntegration(db: Db, userId: string, kind: IntegrationKind): Promise<boolean> {
  const row = await one<{ found: number }>(db, "SELECT 1 AS found FROM integrations WHERE user_id = ? AND kind = ?", [userId, kind]);
  return row !== null;
}
