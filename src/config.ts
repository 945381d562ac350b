/**
 * Environment → typed, validated configuration. Only entry files call `loadConfig(env)`;
 * everything else receives the result. A bad value throws a ConfigError whose message is one
 * line naming the variable, which the entries print before exiting.
 */

import { Cron } from "croner";
import { MODEL_PROVIDERS, type ModelProvider, PLANS } from "./domain.ts";
import { parseS3Url, type S3Address, type S3Connection, s3ConnectionOf } from "./lib/s3-address.ts";

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
  /** Lets outbound requests reach loopback/private addresses (src/docs/notes/outbound-requests.md): tests and local development. */
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
  /** src/docs/notes/operating.md: where the leader writes scheduled backups (none when unset), when, and how many it keeps. */
  backupDir: string | null;
  backupSchedule: string;
  backupKeep: number;
  /** BACKUP_S3_URL: where each scheduled backup is also uploaded, its retention applied there (src/docs/notes/operating.md#backups-off-the-machine). */
  backupS3: S3Address | null;
  /** BACKUP_S3_ENDPOINT and the AWS_* variables: how `crew backup --to s3://…` and the scheduled uploads reach the bucket. */
  s3: S3Connection;
  /** src/docs/notes/operating.md: how long audit rows are kept (AUDIT_RETENTION_DAYS, default 365). */
  auditRetentionDays: number;
  /** The language model set by the operator (src/docs/notes/model.md); wins over the owners' /settings/model. Null when unset. */
  model: ModelEnv | null;
  /** METRICS_TOKEN: GET /metrics answers only with it as a Bearer credential; off when null. */
  metricsToken: string | null;
  /** CREW_MODEL_PRICE_INPUT / _OUTPUT: US dollars per million tokens; null unless both are set. */
  modelPrices: { input: number; output: number } | null;
  /** Single sign-on (OIDC_*); null when OIDC_ISSUER is unset. */
  oidc: OidcEnv | null;
  /** Where mail goes out (SMTP_URL, MAIL_FROM; null when mail is off) and Slack's API base (SLACK_API_URL); see src/docs/notes/delivery.md. */
  mail: MailEnv | null;
  slackApiUrl: string;
  /** Google Workspace and Microsoft 365 connections (GOOGLE_*, MICROSOFT_*; src/docs/notes/connections.md); null when unset. */
  google: GoogleEnv | null;
  microsoft: MicrosoftEnv | null;
  /**
   * OAUTH_CLIENT_METADATA_DOCUMENTS (default on): whether a client_id may name a metadata document.
   * Off for servers without outbound access: clients then fall back to dynamic registration.
   */
  clientMetadataDocuments: boolean;
  /**
   * CREW_INTERNAL_DOMAINS (comma list): mail and invitations from these domains are internal input
   * (src/docs/notes/prompt-injection.md#provenance); null: the domains of the members' own emails.
   */
  internalDomains: string[] | null;
}

export interface OidcEnv {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  /** The button label: "Sign in with {name}". */
  name: string;
  scopes: string;
  roleClaim: string | null;
  ownerValues: string[];
  defaultPlan: (typeof PLANS)[number];
  /** Id or name of the organization new users join; null: the default organization. */
  org: string | null;
  /** OIDC_ONLY: password sign-in is off. */
  only: boolean;
}

/** The deployment's OAuth client at Google (src/docs/notes/connections.md). URLs are the operator's, trusted like OIDC_ISSUER. */
export interface GoogleEnv {
  clientId: string;
  clientSecret: string;
  /** GOOGLE_OAUTH_URL: the OpenID issuer (discovery at `{url}/.well-known/openid-configuration`). */
  oauthUrl: string;
  /** GOOGLE_API_URL: the base of the Gmail and Calendar REST APIs. */
  apiUrl: string;
}

/** The deployment's app registration at Microsoft Entra ID (src/docs/notes/connections.md). */
export interface MicrosoftEnv {
  clientId: string;
  clientSecret: string;
  /** MICROSOFT_TENANT: a tenant id or domain, or `organizations` (any work account; the default). */
  tenant: string;
  /** MICROSOFT_LOGIN_URL: the Entra ID authority host; discovery at `{url}/{tenant}/v2.0/.well-known/openid-configuration`. */
  loginUrl: string;
  /** MICROSOFT_GRAPH_URL: the Graph API base (without /v1.0). */
  graphUrl: string;
}

export interface MailEnv {
  /** `smtp://user:pass@host:port` or `smtps://…`: set by the operator, so trusted (src/docs/notes/outbound-requests.md). */
  smtpUrl: string;
  from: string;
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

/**
 * BACKUP_DIR, BACKUP_S3_URL (+ BACKUP_S3_ENDPOINT, AWS_*). Scheduled backups copy the SQLite file
 * (VACUUM INTO); PostgreSQL's are pg_dump's (src/docs/notes/postgres.md). An upload is written
 * locally first: without BACKUP_DIR, into `backups` beside the database file, as `crew backup` does.
 */
function backupPlaces(env: Env, databaseUrl: string): Pick<Config, "backupDir" | "backupS3" | "s3"> {
  const s3 = s3ConnectionOf(env);
  if (s3 instanceof Error) throw new ConfigError(s3.message);
  const url = (env.BACKUP_S3_URL ?? "").trim();
  const backupS3 = url ? parseS3Url(url) : null;
  if (url && backupS3 === null) throw new ConfigError(`BACKUP_S3_URL must be s3://bucket/prefix, got "${url}"`);
  if (backupS3 instanceof Error) throw new ConfigError(`BACKUP_S3_URL: ${backupS3.message}`);
  let backupDir = (env.BACKUP_DIR ?? "").trim() || null;
  for (const [name, set] of [
    ["BACKUP_DIR", backupDir],
    ["BACKUP_S3_URL", backupS3],
  ] as const) {
    if (set && isPostgresUrl(databaseUrl)) {
      throw new ConfigError(`${name} is for SQLite databases: with PostgreSQL, back up with pg_dump (see /docs/notes/postgres#backups)`);
    }
  }
  if (backupS3 && !backupDir) {
    const file = /^file:(?:\/\/)?([^?]+)/.exec(databaseUrl)?.[1];
    if (!file) throw new ConfigError("BACKUP_S3_URL backs up a local database file (DATABASE_URL=file:…)");
    backupDir = `${file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "."}/backups`;
  }
  return { backupDir, backupS3, s3 };
}

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

/**
 * Variables that carry secrets. Each may instead name a file with `…_FILE` (Docker secrets, systemd
 * credentials): its content, one trailing newline trimmed, is the value. DATABASE_URL is here too
 * because a PostgreSQL or libSQL server address can carry a password.
 */
export const SECRET_VARIABLES = [
  "CREW_SECRET",
  "CREW_MODEL_API_KEY",
  "OIDC_CLIENT_SECRET",
  "DATABASE_AUTH_TOKEN",
  "DATABASE_URL",
  "SMTP_URL",
  "METRICS_TOKEN",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "GOOGLE_CLIENT_ID",
  "GOOGLE_CLIENT_SECRET",
  "MICROSOFT_CLIENT_ID",
  "MICROSOFT_CLIENT_SECRET",
] as const;

/** Reads a secret file's text; entries pass the runtime's reader (this floor touches no file system). */
export type ReadText = (path: string) => string;

const noFiles: ReadText = () => {
  throw new Error("this command reads no files");
};

/** The environment with every `…_FILE` of SECRET_VARIABLES replaced by the file's content. */
export function secretsFromFiles(env: Env, readText: ReadText = noFiles): Env {
  const resolved: Env = { ...env };
  for (const name of SECRET_VARIABLES) {
    const path = (env[`${name}_FILE`] ?? "").trim();
    if (!path) continue;
    if ((env[name] ?? "").trim()) throw new ConfigError(`${name} and ${name}_FILE are both set: keep one`);
    let text: string;
    try {
      text = readText(path);
    } catch (error) {
      throw new ConfigError(`${name}_FILE names a file that cannot be read: ${path} (${(error as Error).message.split("\n")[0]})`);
    }
    resolved[name] = text.replace(/\r?\n$/, "");
    delete resolved[`${name}_FILE`];
  }
  return resolved;
}

/** Whether DATABASE_URL names a PostgreSQL database (src/docs/notes/postgres.md). */
export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

/** A database address as it may be shown: a password in it becomes `***`. */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

export function loadConfig(given: Env, readText?: ReadText): Config {
  const env = secretsFromFiles(given, readText);
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
  if (!/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/|postgres(ql)?:\/\/)/i.test(databaseUrl)) {
    throw new ConfigError(
      `DATABASE_URL must start with file:, postgres://, postgresql://, libsql://, http(s):// or ws(s)://, got "${withoutPassword(databaseUrl)}"`,
    );
  }
  // `file:` alone would open a temporary database that vanishes with the process.
  if (/^file:(\/\/)?(\?|$)/.test(databaseUrl))
    throw new ConfigError(`DATABASE_URL must name a file, e.g. file:data/crew.db, got "${databaseUrl}"`);

  const defaultTimeZone = (env.TZ_DEFAULT ?? "").trim() || "UTC";
  if (!isValidTimeZone(defaultTimeZone)) {
    throw new ConfigError(`TZ_DEFAULT must be an IANA time zone such as Europe/Paris, got "${defaultTimeZone}"`);
  }

  const { backupDir, backupS3, s3 } = backupPlaces(env, databaseUrl);
  const secret = (env.CREW_SECRET ?? "").trim() || undefined;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("CREW_SECRET must be at least 32 characters");
  }
  // PostgreSQL has no data folder to keep a generated secret in, and every process must seal and
  // open with the same one (src/docs/notes/postgres.md#the-secret).
  if (secret === undefined && isPostgresUrl(databaseUrl)) {
    throw new ConfigError(
      "CREW_SECRET (or CREW_SECRET_FILE) must be set when DATABASE_URL is PostgreSQL: the same value for every Crew process",
    );
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

  const metricsToken = (env.METRICS_TOKEN ?? "").trim() || null;
  if (metricsToken !== null && metricsToken.length < 16) throw new ConfigError("METRICS_TOKEN must be at least 16 characters");

  return {
    model: modelEnv(env),
    metricsToken,
    oidc: oidcEnv(env),
    ...providersEnv(env),
    modelPrices: modelPrices(env),
    mail: mailEnv(env),
    slackApiUrl: url("SLACK_API_URL", (env.SLACK_API_URL ?? "").trim() || "https://slack.com/api", ["http:", "https:"]).href.replace(
      /\/+$/,
      "",
    ),
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
    backupDir,
    backupSchedule,
    backupKeep: integer(env, "BACKUP_KEEP", 7, 1, 10_000),
    backupS3,
    s3,
    clientMetadataDocuments: (env.OAUTH_CLIENT_METADATA_DOCUMENTS ?? "").trim() === "" || flag(env, "OAUTH_CLIENT_METADATA_DOCUMENTS"),
    auditRetentionDays: integer(env, "AUDIT_RETENTION_DAYS", 365, 1, 36_500),
    internalDomains: internalDomains(env),
  };
}

/** CREW_INTERNAL_DOMAINS: a comma list of domains (`example.com`, `@example.com` too); unset or empty: null. */
function internalDomains(env: Record<string, string | undefined>): string[] | null {
  const raw = (env.CREW_INTERNAL_DOMAINS ?? "").trim();
  if (!raw) return null;
  const domains = raw
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
  const bad = domains.find((d) => !/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(d));
  if (bad) throw new ConfigError(`CREW_INTERNAL_DOMAINS holds "${bad}", which is not a domain name (e.g. example.com).`);
  return domains;
}

/**
 * CREW_MODEL_PROVIDER, CREW_MODEL_BASE_URL, CREW_MODEL, CREW_MODEL_API_KEY, CREW_MODEL_DAILY_TOKENS.
 * The operator's base URL is trusted (src/docs/notes/outbound-requests.md: addresses set in the environment are not policed).
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

/** OIDC_* (single sign-on): the issuer is trusted like every address set in the environment. */
function oidcEnv(env: Env): OidcEnv | null {
  const issuerRaw = (env.OIDC_ISSUER ?? "").trim();
  const only = flag(env, "OIDC_ONLY");
  if (!issuerRaw) {
    if (only) throw new ConfigError("OIDC_ONLY needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    return null;
  }
  const issuer = url("OIDC_ISSUER", issuerRaw, ["http:", "https:"]).href.replace(/\/+$/, "");
  const clientId = (env.OIDC_CLIENT_ID ?? "").trim();
  if (!clientId) throw new ConfigError("OIDC_CLIENT_ID is required with OIDC_ISSUER");
  const defaultPlan = (env.OIDC_DEFAULT_PLAN ?? "").trim() || "lite";
  if (!(PLANS as readonly string[]).includes(defaultPlan)) {
    throw new ConfigError(`OIDC_DEFAULT_PLAN must be one of ${PLANS.join(", ")}, got "${defaultPlan}"`);
  }
  const scopes = (env.OIDC_SCOPES ?? "").trim() || "openid email profile";
  if (!scopes.split(/\s+/).includes("openid")) throw new ConfigError(`OIDC_SCOPES must include openid, got "${scopes}"`);
  const roleClaim = (env.OIDC_ROLE_CLAIM ?? "").trim() || null;
  const ownerValues = (env.OIDC_OWNER_VALUES ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (roleClaim && ownerValues.length === 0)
    throw new ConfigError("OIDC_OWNER_VALUES must list the claim values of owners with OIDC_ROLE_CLAIM");
  return {
    issuer,
    clientId,
    clientSecret: (env.OIDC_CLIENT_SECRET ?? "").trim() || null,
    name: (env.OIDC_NAME ?? "").trim() || "SSO",
    scopes,
    roleClaim,
    ownerValues,
    defaultPlan: defaultPlan as OidcEnv["defaultPlan"],
    org: (env.OIDC_ORG ?? "").trim() || null,
    only,
  };
}

const baseOf = (env: Env, name: string, fallback: string) =>
  url(name, (env[name] ?? "").trim() || fallback, ["http:", "https:"]).href.replace(/\/+$/, "");

/** GOOGLE_* and MICROSOFT_*: each provider is on when its client id and secret are both set. */
function providersEnv(env: Env): Pick<Config, "google" | "microsoft"> {
  const pair = (prefix: string) => {
    const clientId = (env[`${prefix}_CLIENT_ID`] ?? "").trim();
    const clientSecret = (env[`${prefix}_CLIENT_SECRET`] ?? "").trim();
    if (!clientId && !clientSecret) return null;
    if (!clientId || !clientSecret) throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
    return { clientId, clientSecret };
  };
  const google = pair("GOOGLE");
  const microsoft = pair("MICROSOFT");
  const tenant = (env.MICROSOFT_TENANT ?? "").trim() || "organizations";
  if (!/^[A-Za-z0-9.-]+$/.test(tenant))
    throw new ConfigError(`MICROSOFT_TENANT must be a tenant id, a domain or organizations, got "${tenant}"`);
  return {
    google: google && {
      ...google,
      oauthUrl: baseOf(env, "GOOGLE_OAUTH_URL", "https://accounts.google.com"),
      apiUrl: baseOf(env, "GOOGLE_API_URL", "https://www.googleapis.com"),
    },
    microsoft: microsoft && {
      ...microsoft,
      tenant,
      loginUrl: baseOf(env, "MICROSOFT_LOGIN_URL", "https://login.microsoftonline.com"),
      graphUrl: baseOf(env, "MICROSOFT_GRAPH_URL", "https://graph.microsoft.com"),
    },
  };
}

function price(env: Env, name: string): number | null {
  const raw = (env[name] ?? "").trim();
  if (!raw) return null;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be US dollars per million tokens, e.g. 0.15, got "${raw}"`);
  return Number(raw);
}

/** CREW_MODEL_PRICE_INPUT and CREW_MODEL_PRICE_OUTPUT: both or neither. */
function modelPrices(env: Env): Config["modelPrices"] {
  const input = price(env, "CREW_MODEL_PRICE_INPUT");
  const output = price(env, "CREW_MODEL_PRICE_OUTPUT");
  if ((input === null) !== (output === null))
    throw new ConfigError("CREW_MODEL_PRICE_INPUT and CREW_MODEL_PRICE_OUTPUT must be set together");
  return input === null || output === null ? null : { input, output };
}

/** SMTP_URL and MAIL_FROM: both or neither (mail is off without them). */
function mailEnv(env: Env): MailEnv | null {
  const smtpRaw = (env.SMTP_URL ?? "").trim();
  const from = (env.MAIL_FROM ?? "").trim();
  if (!smtpRaw && !from) return null;
  if (!smtpRaw) throw new ConfigError("SMTP_URL must be set with MAIL_FROM, e.g. smtp://user:pass@mail.example.com:587");
  if (!from) throw new ConfigError('MAIL_FROM must be set with SMTP_URL, e.g. "Crew <crew@example.com>"');
  if (!/@/.test(from)) throw new ConfigError(`MAIL_FROM must be an address such as crew@example.com, got "${from}"`);
  return { smtpUrl: url("SMTP_URL", smtpRaw, ["smtp:", "smtps:"]).href, from };
}
