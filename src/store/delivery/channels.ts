/**
 * The organization's team-chat connections (src/docs/notes/delivery.md): Slack (bot token sealed, the channel the
 * standups go to, the channels the Slack agent reads) and Teams (an incoming-webhook URL, sealed:
 * it is a credential). `state` is what the Slack agent has read so far.
 */
import type { InStatement } from "@libsql/client";
import { integer, json, type SqlRow, table } from "../columns.ts";
import type { Db } from "../db.ts";

export type ChannelKind = "slack" | "teams";

export interface StoredChannel {
  config: Record<string, unknown>;
  state: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

const CHANNEL = table("org_channels", {
  config: json<Record<string, unknown>>({}),
  state: json<Record<string, unknown>>({}),
  createdAt: integer(),
  updatedAt: integer(),
});

export async function getChannel(db: Db, orgId: string, kind: ChannelKind): Promise<StoredChannel | null> {
  const row = await db.one<SqlRow>("SELECT config, state, created_at, updated_at FROM org_channels WHERE org_id = ? AND kind = ?", [
    orgId,
    kind,
  ]);
  return row ? CHANNEL.read(row) : null;
}

/** Connects or replaces the connection; what the agent read so far starts over with a new connection. */
export function saveChannelStatement(orgId: string, kind: ChannelKind, config: Record<string, unknown>, now: number): InStatement {
  return {
    sql: `INSERT INTO org_channels (org_id, kind, config, state, created_at, updated_at) VALUES (?, ?, ?, '{}', ?, ?)
          ON CONFLICT (org_id, kind) DO UPDATE SET config = excluded.config, state = '{}', updated_at = excluded.updated_at`,
    args: [orgId, kind, JSON.stringify(config), now, now],
  };
}

export function saveChannelStateStatement(orgId: string, kind: ChannelKind, state: Record<string, unknown>): InStatement {
  return { sql: "UPDATE org_channels SET state = ? WHERE org_id = ? AND kind = ?", args: [JSON.stringify(state), orgId, kind] };
}

export async function deleteChannel(db: Db, orgId: string, kind: ChannelKind): Promise<boolean> {
  return (await db.run("DELETE FROM org_channels WHERE org_id = ? AND kind = ?", [orgId, kind])) === 1;
}
