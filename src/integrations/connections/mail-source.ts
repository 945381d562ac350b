/**
 * The connected mailboxes of an organization as one mail source (src/docs/notes/connections.md):
 * every active person's Google or Microsoft connection with mail ticked, at most MAX_MAILBOXES,
 * each read from its own cursor. A mailbox that cannot be read raises its person's alert
 * (access.ts) and is left out; the others still count.
 */
import type { Db } from "../../store/db.ts";
import { connectionsOfOrg, getConnection, type OrgConnection, saveConnectionState } from "../../store/integrations/connections.ts";
import { readGmail } from "../google/gmail.ts";
import { readOutlook } from "../microsoft/outlook-mail.ts";
import { type ConnectionDeps, ConnectionState, ConnectionUnavailable, parseJson, StoredConfig, withConnection } from "./access.ts";
import type { ProviderMail } from "./mail-message.ts";

/** Mailboxes read per run: a small company's people, bounded in time and tokens. */
export const MAX_MAILBOXES = 20;

export interface ConnectedMail extends ProviderMail {
  /** Whose mailbox: "Ada's Gmail". */
  mailbox: string;
}

export interface ConnectedMailRead {
  messages: ConnectedMail[];
  /** Mailboxes that could not be read, each already alerted. */
  problems: string[];
  /** How many connected mailboxes there are. */
  mailboxes: number;
  markSeen(): Promise<void>;
}

const mailboxName = (c: OrgConnection) => `${c.name}'s ${c.provider === "google" ? "Gmail" : "Outlook"}`;

export async function mailConnectionsOf(db: Db, orgId: string): Promise<OrgConnection[]> {
  return (await connectionsOfOrg(db, orgId, MAX_MAILBOXES)).filter((c) => parseJson(StoredConfig, c.config)?.mail);
}

/** Reads each connected mailbox's new mail, newest `maxItems` of each. */
export async function readConnectedMail(
  deps: ConnectionDeps,
  orgId: string,
  limits: { maxItems: number; maxChars: number },
): Promise<ConnectedMailRead> {
  const rows = await mailConnectionsOf(deps.db, orgId);
  const read = await Promise.all(
    rows.map(async (row) => {
      try {
        return await withConnection(deps, orgId, row, async (conn) => {
          const got =
            row.provider === "google"
              ? await readGmail(conn, conn.state.cursor, limits)
              : await readOutlook(conn, conn.state.cursor, deps.clock.now(), limits);
          return { row, ...got, problem: null };
        });
      } catch (error) {
        if (!(error instanceof ConnectionUnavailable)) throw error;
        return { row, messages: [], cursor: undefined, problem: `${mailboxName(row)}: ${error.message}` };
      }
    }),
  );
  return {
    messages: read.flatMap((r) => r.messages.map((m) => ({ ...m, mailbox: mailboxName(r.row) }))),
    problems: read.flatMap((r) => (r.problem ? [r.problem] : [])),
    mailboxes: rows.length,
    markSeen: async () => {
      for (const r of read) {
        if (r.cursor === undefined) continue;
        // From the state as stored now: a backoff cleared or set meanwhile stays as it is.
        const now = await getConnection(deps.db, r.row.userId, r.row.provider);
        const state: ConnectionState = (now && parseJson(ConnectionState, now.state)) ?? {};
        await saveConnectionState(deps.db, r.row, JSON.stringify({ ...state, cursor: r.cursor }));
      }
    },
  };
}
