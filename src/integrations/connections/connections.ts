/**
 * A person's connections to Google Workspace and Microsoft 365 (src/docs/notes/connections.md):
 * saved after the OAuth callback (tokens sealed, the alert of the provider resolved with the same
 * write), listed without any token, and removed — revoked at the provider first where it has a
 * revocation endpoint — on disconnect and when the person is deactivated.
 */
import type { ConnectionProvider } from "../../domain.ts";
import { type AuditActor, recordAudit } from "../../store/audit/audit.ts";
import { openUserAlert, resolveUserAlertsStatement } from "../../store/integrations/alerts.ts";
import {
  connectionsOfUser,
  deleteConnectionStatement,
  getConnection,
  type StoredConnection,
  saveConnectionStatement,
} from "../../store/integrations/connections.ts";
import { type ConnectionDeps, openTokens, parseJson, StoredConfig, sealTokens } from "./access.ts";
import { type Connected, revokeAtProvider } from "./oauth.ts";
import { partsGranted, providerEnv } from "./providers.ts";

export interface ConnectionStatus {
  provider: ConnectionProvider;
  email: string;
  mail: boolean;
  calendar: boolean;
  scopes: string[];
  connectedAt: number;
  /** The open alert's message: why the last use failed, or null. */
  problem: string | null;
}

/** Saves the connection the callback produced; the parts are those both asked for and granted. */
export async function saveConnection(
  deps: ConnectionDeps,
  who: { orgId: string; userId: string },
  provider: ConnectionProvider,
  connected: Connected,
  asked: { mail: boolean; calendar: boolean },
): Promise<void> {
  const granted = partsGranted(provider, connected.scopes);
  const config: StoredConfig = {
    email: connected.email,
    scopes: connected.scopes,
    mail: asked.mail && granted.mail,
    calendar: asked.calendar && granted.calendar,
    tokens: await sealTokens(deps.config, provider, who.userId, connected.tokens),
  };
  const now = deps.clock.now();
  // Reconnecting is how a person answers the alert: it is resolved with the same write.
  await deps.db.batch(
    [
      saveConnectionStatement(who.userId, provider, JSON.stringify(config), now),
      resolveUserAlertsStatement({ orgId: who.orgId, userId: who.userId, service: provider }, now),
    ],
    "write",
  );
  await recordAudit(deps.db, who.orgId, "connection.created", { kind: "user", userId: who.userId }, now, connected.email, {
    provider,
    mail: config.mail,
    calendar: config.calendar,
  });
}

export async function connectionStatuses(deps: ConnectionDeps, who: { orgId: string; userId: string }): Promise<ConnectionStatus[]> {
  const rows = await connectionsOfUser(deps.db, who.userId);
  return Promise.all(
    rows.map(async (row) => {
      const config = parseJson(StoredConfig, row.config);
      const alert = await openUserAlert(deps.db, { orgId: who.orgId, userId: who.userId, service: row.provider });
      return {
        provider: row.provider,
        email: config?.email ?? "",
        mail: config?.mail ?? false,
        calendar: config?.calendar ?? false,
        scopes: config?.scopes ?? [],
        connectedAt: row.updatedAt,
        problem: alert?.message ?? null,
      };
    }),
  );
}

/** Revokes the refresh token at the provider (best effort: a provider that cannot be reached still loses the connection here). */
async function revoke(deps: ConnectionDeps, row: StoredConnection): Promise<void> {
  const env = providerEnv(deps.config, row.provider);
  const config = parseJson(StoredConfig, row.config);
  const tokens = config && (await openTokens(deps.config, row, config.tokens));
  if (!env || !tokens) return;
  try {
    await revokeAtProvider(row.provider, env, tokens.refreshToken);
  } catch (error) {
    deps.log.warn("connection revocation failed", { user_id: row.userId, provider: row.provider, error: String(error).split("\n")[0] });
  }
}

/** False when there was no such connection. Its alerts go with it. */
export async function disconnect(
  deps: ConnectionDeps,
  who: { orgId: string; userId: string; actor?: AuditActor },
  provider: ConnectionProvider,
): Promise<boolean> {
  const row = await getConnection(deps.db, who.userId, provider);
  if (!row) return false;
  await revoke(deps, row);
  const now = deps.clock.now();
  await deps.db.batch(
    [
      deleteConnectionStatement(who.userId, provider),
      resolveUserAlertsStatement({ orgId: who.orgId, userId: who.userId, service: provider }, now),
    ],
    "write",
  );
  await recordAudit(deps.db, who.orgId, "connection.deleted", who.actor ?? { kind: "user", userId: who.userId }, now, null, { provider });
  return true;
}

/** A deactivated person's connections: each revoked at the provider and deleted. */
export async function disconnectAll(deps: ConnectionDeps, who: { orgId: string; userId: string }, actor: AuditActor) {
  for (const row of await connectionsOfUser(deps.db, who.userId)) await disconnect(deps, { ...who, actor }, row.provider);
}
