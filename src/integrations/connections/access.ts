/**
 * Using a connection (src/docs/notes/connections.md): its tokens opened from the secret box,
 * refreshed before they expire (no person needed), and what the provider's answers mean for the
 * person's `google` / `microsoft` integration alert — a refused refresh (invalid_grant) is the
 * critical "access was revoked: reconnect" alert; a 429 or 5xx a warning and a backoff; the next
 * success resolves either. Every REST call goes through the outbound connector with the
 * provider's URL, which is the operator's and trusted (src/docs/notes/outbound-requests.md).
 */
import * as v from "valibot";
import type { Config } from "../../config.ts";
import type { ConnectionProvider } from "../../domain.ts";
import { type Clock, MINUTE } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { newId } from "../../lib/random.ts";
import type { Db } from "../../store/db.ts";
import { openUserAlert, raiseUserAlert, resolveUserAlerts } from "../../store/integrations/alerts.ts";
import { getConnection, type StoredConnection, saveConnectionConfig, saveConnectionState } from "../../store/integrations/connections.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../outbound.ts";
import { open, SecretBoxError, seal } from "../secret-box.ts";
import { AccessRevoked, refreshTokens, type Tokens } from "./oauth.ts";
import { apiBaseOf, PROVIDERS, providerEnv } from "./providers.ts";

export interface ConnectionDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Logger;
  outbound: OutboundPolicy;
}

export const StoredConfig = v.object({
  email: v.string(),
  scopes: v.array(v.string()),
  mail: v.boolean(),
  calendar: v.boolean(),
  /** Tokens JSON sealed with purposeOf(provider, userId). */
  tokens: v.string(),
});
export type StoredConfig = v.InferOutput<typeof StoredConfig>;

export const ConnectionState = v.object({
  /** Gmail's last historyId, or Graph's @odata.deltaLink. */
  cursor: v.optional(v.string()),
  /** No provider call before this (epoch ms), after a 429 or 5xx. */
  backoffUntil: v.optional(v.number()),
  failures: v.optional(v.number()),
});
export type ConnectionState = v.InferOutput<typeof ConnectionState>;

const TokensShape = v.object({ accessToken: v.string(), refreshToken: v.string(), expiresAt: v.number() });

/** Binds sealed tokens to their row: copied into another person's row, they do not open. */
export const purposeOf = (provider: ConnectionProvider, userId: string) => `${provider}:${userId}`;

/** Refreshed this long before the access token expires, so a call never starts with one about to lapse. */
const REFRESH_AHEAD_MS = 5 * MINUTE;
const BACKOFF_MAX_MS = 60 * MINUTE;

export function parseJson<T extends v.GenericSchema>(schema: T, text: string): v.InferOutput<T> | null {
  try {
    const parsed = v.safeParse(schema, JSON.parse(text));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}

export function secretOf(config: Config): string {
  // boot() always sets it (CREW_SECRET or the generated one); an app built without it is a wiring bug.
  if (!config.secret) throw new Error("CREW_SECRET is not configured: connection tokens cannot be sealed");
  return config.secret;
}

export const sealTokens = (config: Config, provider: ConnectionProvider, userId: string, tokens: Tokens) =>
  seal(secretOf(config), JSON.stringify(tokens), purposeOf(provider, userId));

export async function openTokens(config: Config, c: Pick<StoredConnection, "provider" | "userId">, sealed: string): Promise<Tokens | null> {
  try {
    return parseJson(TokensShape, await open(secretOf(config), sealed, purposeOf(c.provider, c.userId)));
  } catch (error) {
    if (error instanceof SecretBoxError) return null;
    throw error;
  }
}

/** An answer of the provider's API that is not a success. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** The connection cannot be used now; the alert (critical or warning) is raised already. `message` is for people. */
export class ConnectionUnavailable extends Error {
  constructor(
    readonly provider: ConnectionProvider,
    message: string,
    readonly revoked: boolean,
  ) {
    super(message);
  }
}

/** An opened connection for one piece of work: call its API with a fresh token. */
export interface OpenConnection {
  provider: ConnectionProvider;
  userId: string;
  email: string;
  config: StoredConfig;
  state: ConnectionState;
  /** JSON from `path` (relative to the API base, or an absolute URL the provider handed out, e.g. a deltaLink). */
  call<T = unknown>(path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<T>;
  /** Requests made through `call` (the benchmark counts them). */
  readonly requests: number;
}

const alertKey = (orgId: string, c: Pick<StoredConnection, "userId" | "provider">) => ({ orgId, userId: c.userId, service: c.provider });

function retryAfter(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The operator's provider URLs are trusted: private addresses pass (sovereign clouds, tests), still through the pinned connector. */
const trusted = (policy: OutboundPolicy): OutboundPolicy => ({ ...policy, allowPrivate: true });

/**
 * Runs `work` with the connection; throws ConnectionUnavailable (alert raised) when the grant is
 * revoked, the tokens do not open, the provider is busy or failing, or in backoff.
 */
export async function withConnection<T>(
  deps: ConnectionDeps,
  orgId: string,
  row: StoredConnection,
  work: (conn: OpenConnection) => Promise<T>,
): Promise<T> {
  const label = PROVIDERS[row.provider].label;
  const env = providerEnv(deps.config, row.provider);
  const config = parseJson(StoredConfig, row.config);
  const state: ConnectionState = parseJson(ConnectionState, row.state) ?? {};
  const now = deps.clock.now();
  const broken = async (message: string, revoked: boolean): Promise<never> => {
    const at = deps.clock.now();
    await raiseUserAlert(deps.db, { ...alertKey(orgId, row), id: newId("alr", at), message, severity: "critical" }, at);
    throw new ConnectionUnavailable(row.provider, message, revoked);
  };
  const reconnect = `reconnect on /settings/connections${config ? ` (${config.email})` : ""}.`;
  if (!env) return broken(`${label} is no longer set up on this server: ask the operator, then ${reconnect}`, false);
  if (!config) return broken(`The saved ${label} connection cannot be read: ${reconnect}`, false);
  if (state.backoffUntil && state.backoffUntil > now) {
    throw new ConnectionUnavailable(
      row.provider,
      `${label} asked Crew to wait; trying again after ${new Date(state.backoffUntil).toISOString()}.`,
      false,
    );
  }
  let tokens = await openTokens(deps.config, row, config.tokens);
  if (!tokens) return broken(`The saved ${label} tokens cannot be decrypted (was CREW_SECRET changed?): ${reconnect}`, false);

  const refresh = async (): Promise<void> => {
    const current = tokens as Tokens;
    try {
      tokens = await refreshTokens(row.provider, env, current.refreshToken, deps.clock.now());
    } catch (error) {
      if (error instanceof AccessRevoked) {
        deps.log.warn("connection refresh refused", { user_id: row.userId, provider: row.provider, reason: error.message });
        return broken(`${label} access was revoked: ${reconnect}`, true);
      }
      throw new ProviderError(503, `${label} could not refresh the access: ${(error as Error).message.split("\n")[0]}`);
    }
    const sealed = await sealTokens(deps.config, row.provider, row.userId, tokens);
    await saveConnectionConfig(deps.db, row, JSON.stringify({ ...config, tokens: sealed }), deps.clock.now());
  };

  const base = apiBaseOf(row.provider, env);
  let requests = 0;
  const call = async <R>(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<R> => {
    const url = /^https?:/.test(path) ? path : `${base}${path}`;
    for (let attempt = 1; ; attempt++) {
      requests++;
      const headers: Record<string, string> = {
        Accept: "application/json",
        ...init.headers,
        Authorization: `Bearer ${tokens?.accessToken}`,
      };
      if (init.body !== undefined) headers["Content-Type"] = "application/json";
      let response: Response;
      try {
        response = await outboundFetch(trusted(deps.outbound), url, {
          method: init.method ?? "GET",
          headers,
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          timeoutMs: 15_000,
          maxBytes: 4 * 1024 * 1024,
          redirect: "error",
        });
      } catch (error) {
        if (error instanceof OutboundFailed || error instanceof OutboundRefused)
          throw new ProviderError(503, `${label} could not be reached.`);
        throw error;
      }
      // An access token revoked early (a password change): one refresh, then the call again.
      if (response.status === 401 && attempt === 1) {
        void response.body?.cancel().catch(() => {});
        await refresh();
        continue;
      }
      if (!response.ok) {
        const text = await response.text().catch(() => "");
        throw new ProviderError(
          response.status,
          `${label} answered HTTP ${response.status}: ${text.slice(0, 200)}`,
          retryAfter(response.headers.get("retry-after"), deps.clock.now()),
        );
      }
      if (response.status === 204) return undefined as R;
      return (await response.json()) as R;
    }
  };

  try {
    if (tokens.expiresAt - REFRESH_AHEAD_MS <= now) await refresh();
    const result = await work({
      provider: row.provider,
      userId: row.userId,
      email: config.email,
      config,
      state,
      call,
      get requests() {
        return requests;
      },
    });
    // Reads first: the usual case (no open alert, no backoff) costs no write.
    if (await openUserAlert(deps.db, alertKey(orgId, row))) await resolveUserAlerts(deps.db, alertKey(orgId, row), deps.clock.now());
    if (state.backoffUntil || state.failures) {
      const fresh = (await currentState(deps, row)) ?? {};
      await saveConnectionState(deps.db, row, JSON.stringify({ ...fresh, backoffUntil: undefined, failures: undefined }));
    }
    return result;
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.status === 429 || error.status >= 500) {
      const at = deps.clock.now();
      const failures = (state.failures ?? 0) + 1;
      const wait = Math.min(error.retryAfterMs ?? 2 ** (failures - 1) * MINUTE, BACKOFF_MAX_MS);
      const until = at + wait;
      const fresh = (await currentState(deps, row)) ?? {};
      await saveConnectionState(deps.db, row, JSON.stringify({ ...fresh, backoffUntil: until, failures }));
      const why = error.status === 429 ? "is limiting Crew's requests (HTTP 429)" : `is failing (HTTP ${error.status})`;
      const message = `${label} ${why} for ${config.email}: Crew tries again after ${new Date(until).toISOString()}.`;
      deps.log.warn("connection call failed", { user_id: row.userId, provider: row.provider, status: error.status });
      await raiseUserAlert(deps.db, { ...alertKey(orgId, row), id: newId("alr", at), message, severity: "warning" }, at);
      throw new ConnectionUnavailable(row.provider, message, false);
    }
    deps.log.warn("connection call refused", { user_id: row.userId, provider: row.provider, status: error.status });
    return broken(`${label} refused a request for ${config.email} (HTTP ${error.status}): ${reconnect}`, false);
  }
}

/** The state as stored now (a read of mail may have moved the cursor meanwhile). */
async function currentState(deps: ConnectionDeps, row: StoredConnection): Promise<ConnectionState | null> {
  const found = await getConnection(deps.db, row.userId, row.provider);
  return found ? parseJson(ConnectionState, found.state) : null;
}
