/**
 * Environment → typed, validated configuration. Only entry files call `loadConfig(env)`;
 * everything else receives the result. A bad value throws a ConfigError whose message is one
 * line naming the variable, which the entries print before exiting.
 */

import { Cron } from "croner";
import { MODEL_PROVIDERS, type ModelProvider } from "./domain.ts";

export interface Config {
  port: number;
  host: string;
  /** Public base URL, no trailing slash. Every absolute URL Crew emits is built from it. */
  baseUrl: string;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  rateLimitPerHour: number;
  keyCreatePerHour: number;
  defaultTimeZone: string;
  /** Encrypts stored integration credentials; generated into the data folder when unset. */
  secret: string | undefined;
  /** Lets outbound requests reach loopback/private addresses (SPEC §16): tests and local development. */
  allowPrivateTargets: boolean;
  /**
   * Addresses of reverse proxies in front of Crew (TRUSTED_PROXY, comma-separated IPs). A request
   * whose socket peer is one of them is attributed to the address its X-Forwarded-For names;
   * otherwise — the default — the socket address is the client (X-Forwarded-For is anyone's to set).
   */
  trustedProxies: string[];
  /** Extra origins allowed to call /mcp from a browser (DNS-rebinding protection). */
  allowedOrigins: string[];
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** SPEC §14: where the leader writes scheduled backups (none when unset), when, and how many it keeps. */
  backupDir: string | null;
  backupSchedule: string;
  backupKeep: number;
  /** SPEC §14: how long audit rows are kept (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays: number;
  /** The language model set by the operator (SPEC §13); wins over the owners' /settings/model. Null when unset. */
  model: ModelEnv | null;
}

export { MODEL_PROVIDERS, type ModelProvider };

export interface ModelEnv {
  provider: ModelProvider;
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  /** CREW_MODEL_DAILY_TOKENS: tokens per organization per day; null → the setting or the default. */
  dailyTokens: number | null;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function flag(env: Env, name: string): boolean {
  const raw = (env[name] ?? "").trim().toLowerCase();
  if (raw === "" || raw === "0" || raw === "false" || raw === "no" || raw === "off") return false;
  if (raw === "1" || raw === "true" || raw === "yes" || raw === "on") return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(name: string, raw: string, schemes: string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${schemes.join(" or ")}, got "${raw}"`);
  }
  return parsed;
}

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A host name (`localhost`, `crew.internal`), an IPv4 address or an IPv6 address without brackets (`::`). */
const HOST_PATTERN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/;

export function loadConfig(env: Env): Config {
  const port = integer(env, "PORT", 3000, 0, 65535);
  // `[::1]` as written in URLs is accepted too; servers listen on the bare address.
  const host = (env.HOST ?? "").trim().replace(/^\[(.*)\]$/, "$1") || "127.0.0.1";
  if (!HOST_PATTERN.test(host)) throw new ConfigError(`HOST must be a host name or an IP address such as 0.0.0.0, got "${env.HOST}"`);

  const baseRaw = (env.BASE_URL ?? "").trim() || `http://localhost:${port}`;
  const base = url("BASE_URL", baseRaw, ["http:", "https:"]);
  if (base.search || base.hash) throw new ConfigError(`BASE_URL must not have a query or fragment, got "${baseRaw}"`);
  // Every route, the OAuth issuer and the /.well-known documents live at the root of the origin.
  if (base.pathname !== "/" || base.username || base.password) {
    throw new ConfigError(`BASE_URL must be scheme, host and port only (no path or user), got "${baseRaw}"`);
  }
  const baseUrl = base.href.replace(/\/+$/, "");

  const databaseUrl = (env.DATABASE_URL ?? "").trim() || "file:data/crew.db";
  if (!/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with file:, libsql://, http(s):// or ws(s)://, got "${databaseUrl}"`);
  }
  // `file:` alone would open a temporary database that vanishes with the process.
  if (/^file:(\/\/)?(\?|$)/.test(databaseUrl))
    throw new ConfigError(`DATABASE_URL must name a file, e.g. file:data/crew.db, got "${databaseUrl}"`);

  const defaultTimeZone = (env.TZ_DEFAULT ?? "").trim() || "UTC";
  if (!isValidTimeZone(defaultTimeZone)) {
    throw new ConfigError(`TZ_DEFAULT must be an IANA time zone such as Europe/Paris, got "${defaultTimeZone}"`);
  }

  const secret = (env.CREW_SECRET ?? "").trim() || undefined;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("CREW_SECRET must be at least 32 characters");
  }

  const allowedOrigins = (env.ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => url("ALLOWED_ORIGINS", o, ["http:", "https:"]).origin);

  const trustedProxies = (env.TRUSTED_PROXY ?? "")
    .split(",")
    .map((p) => p.trim().replace(/^\[(.*)\]$/, "$1"))
    .filter(Boolean);
  for (const proxy of trustedProxies) {
    if (!/^[0-9.]+$|^[0-9a-fA-F:.]+$/.test(proxy) || (!proxy.includes(".") && !proxy.includes(":"))) {
      throw new ConfigError(`TRUSTED_PROXY must list IP addresses separated by commas, got "${proxy}"`);
    }
  }

  const logLevel = ((env.LOG_LEVEL ?? "").trim() || "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of debug, info, warn, error, silent, got "${env.LOG_LEVEL}"`);
  }

  const backupSchedule = (env.BACKUP_SCHEDULE ?? "").trim() || "0 3 * * *";
  try {
    new Cron(backupSchedule, { paused: true });
  } catch (error) {
    throw new ConfigError(
      `BACKUP_SCHEDULE must be a cron expression such as "0 3 * * *", got "${backupSchedule}" (${(error as Error).message})`,
    );
  }

  return {
    model: modelEnv(env),
    port,
    host,
    baseUrl,
    databaseUrl,
    databaseAuthToken: (env.DATABASE_AUTH_TOKEN ?? "").trim() || undefined,
    rateLimitPerHour: integer(env, "RATE_LIMIT_PER_HOUR", 600, 1, 10_000_000),
    keyCreatePerHour: integer(env, "KEY_CREATE_PER_HOUR", 10, 1, 1_000_000),
    defaultTimeZone,
    secret,
    // WEBHOOK_ALLOW_PRIVATE is the older name, kept as an alias; the new name wins when both are set.
    allowPrivateTargets: flag(env, (env.ALLOW_PRIVATE_TARGETS ?? "").trim() ? "ALLOW_PRIVATE_TARGETS" : "WEBHOOK_ALLOW_PRIVATE"),
    allowedOrigins,
    trustedProxies,
    logLevel,
    backupDir: (env.BACKUP_DIR ?? "").trim() || null,
    backupSchedule,
    backupKeep: integer(env, "BACKUP_KEEP", 7, 1, 10_000),
    auditRetentionDays: integer(env, "AUDIT_RETENTION_DAYS", 365, 1, 36_500),
  };
}

/**
 * CREW_MODEL_PROVIDER, CREW_MODEL_BASE_URL, CREW_MODEL, CREW_MODEL_API_KEY, CREW_MODEL_DAILY_TOKENS.
 * The operator's base URL is trusted (SPEC §16: addresses set in the environment are not policed).
 */
function modelEnv(env: Env): ModelEnv | null {
  const provider = (env.CREW_MODEL_PROVIDER ?? "").trim();
  const model = (env.CREW_MODEL ?? "").trim();
  const baseRaw = (env.CREW_MODEL_BASE_URL ?? "").trim();
  const dailyTokens = (env.CREW_MODEL_DAILY_TOKENS ?? "").trim() ? integer(env, "CREW_MODEL_DAILY_TOKENS", 0, 1, 1_000_000_000) : null;
  if (!provider && !model && !baseRaw) return null;
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ConfigError(`CREW_MODEL_PROVIDER must be one of ${MODEL_PROVIDERS.join(", ")}, got "${provider}"`);
  }
  if (!model) throw new ConfigError("CREW_MODEL must name the model, e.g. llama3.2 or gpt-4o-mini");
  if (provider === "openai-compatible" && !baseRaw) {
    throw new ConfigError("CREW_MODEL_BASE_URL is required for openai-compatible, e.g. http://localhost:11434/v1");
  }
  const baseUrl = baseRaw ? url("CREW_MODEL_BASE_URL", baseRaw, ["http:", "https:"]).href.replace(/\/+$/, "") : null;
  return { provider: provider as ModelProvider, baseUrl, model, apiKey: (env.CREW_MODEL_API_KEY ?? "").trim() || null, dailyTokens };
}
