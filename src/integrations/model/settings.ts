/**
 * Which model an organization uses (src/docs/notes/model.md): the operator's environment (CREW_MODEL_*) wins over
 * the owners' /settings/model; the stored API key is sealed with CREW_SECRET like calendar
 * passwords (src/integrations/secret-box.ts), bound to the organization. The daily token budget
 * comes from CREW_MODEL_DAILY_TOKENS, else the setting, else DEFAULT_DAILY_TOKENS.
 */
import * as v from "valibot";
import type { Config, ModelProvider } from "../../config.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import type { OutboundPolicy } from "../../lib/outbound-policy.ts";
import { type AuditActor, recordAudit } from "../../store/audit/audit.ts";
import type { Db } from "../../store/db.ts";
import { deleteModelSettings, getModelSettings, saveModelSettings, tokensSince } from "../../store/runs/model.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../outbound.ts";
import { open, SecretBoxError, seal, sealingKey } from "../secret-box.ts";
import { CALL_TIMEOUT_MS, callForObject, callForText, type ModelConnection, structuredMode } from "./client.ts";

/** Tokens per organization per day when neither the environment nor the setting says. */
export const DEFAULT_DAILY_TOKENS = 1_000_000;

export interface ModelDeps {
  db: Db;
  config: Config;
  clock: Clock;
  /** The outbound policy for an owner's saved base URL; without one, only literal addresses can pass. */
  outbound?: OutboundPolicy;
}

/** A model answer can be long: well above outboundFetch's default cap, still bounded. */
const MODEL_RESPONSE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * fetch for an owner-saved endpoint (src/docs/notes/outbound-requests.md: user-supplied addresses go through the policy;
 * only the operator's environment is trusted). Refused and unreachable read the same to users.
 */
function policyFetch(policy: OutboundPolicy): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    try {
      return await outboundFetch(policy, url, { ...init, timeoutMs: CALL_TIMEOUT_MS, maxBytes: MODEL_RESPONSE_MAX_BYTES });
    } catch (error) {
      if (error instanceof OutboundRefused || error instanceof OutboundFailed) {
        throw new Error(`${new URL(url).origin} could not be reached`, { cause: error });
      }
      throw error;
    }
  }) as typeof globalThis.fetch;
}

export interface ResolvedModel extends ModelConnection {
  source: "environment" | "settings";
  dailyTokens: number;
}

const purpose = (orgId: string) => `model:${orgId}`;

const secretOf = (config: Config) => sealingKey(config, "the model API key");

/** The model to use, or null when none is connected. A stored key that no longer opens counts as no model. */
export async function resolveModel(deps: ModelDeps, orgId: string): Promise<ResolvedModel | null> {
  const env = deps.config.model;
  const stored = await getModelSettings(deps.db, orgId);
  if (env) {
    const dailyTokens = env.dailyTokens ?? stored?.dailyTokens ?? DEFAULT_DAILY_TOKENS;
    return { provider: env.provider, baseUrl: env.baseUrl, model: env.model, apiKey: env.apiKey, source: "environment", dailyTokens };
  }
  if (!stored) return null;
  let apiKey: string | null = null;
  if (stored.apiKey) {
    try {
      apiKey = await open(secretOf(deps.config), stored.apiKey, purpose(orgId));
    } catch (error) {
      if (error instanceof SecretBoxError) return null;
      throw error;
    }
  }
  return {
    provider: stored.provider,
    baseUrl: stored.baseUrl,
    model: stored.model,
    apiKey,
    source: "settings",
    dailyTokens: stored.dailyTokens ?? DEFAULT_DAILY_TOKENS,
    fetch: policyFetch(deps.outbound ?? { allowPrivate: deps.config.allowPrivateTargets, resolve: async () => [] }),
  };
}

export interface ModelStatus {
  connected: boolean;
  source: "environment" | "settings" | null;
  provider: ModelProvider | null;
  baseUrl: string | null;
  model: string | null;
  hasApiKey: boolean;
  dailyTokens: number;
  tokensToday: number;
  updatedAt: number | null;
}

/** The start of the UTC day `now` falls in: budgets reset at midnight UTC. */
export const dayStart = (now: number) => now - (now % 86_400_000);

/** What the settings page and GET /api/integrations/model show: never the key, only whether one is set. */
export async function modelStatus(deps: ModelDeps, orgId: string): Promise<ModelStatus> {
  const [resolved, stored, tokensToday] = await Promise.all([
    resolveModel(deps, orgId),
    getModelSettings(deps.db, orgId),
    tokensSince(deps.db, orgId, dayStart(deps.clock.now())),
  ]);
  return {
    connected: resolved !== null,
    source: resolved?.source ?? null,
    provider: resolved?.provider ?? null,
    baseUrl: resolved?.baseUrl ?? null,
    model: resolved?.model ?? null,
    hasApiKey: Boolean(resolved?.apiKey),
    dailyTokens: resolved?.dailyTokens ?? stored?.dailyTokens ?? DEFAULT_DAILY_TOKENS,
    tokensToday,
    updatedAt: resolved?.source === "settings" ? (stored?.updatedAt ?? null) : null,
  };
}

export interface ModelSettingsInput {
  provider: ModelProvider;
  baseUrl?: string;
  model: string;
  /** Omitted: keep the stored key (the form never shows it back). Empty string: remove it. */
  apiKey?: string;
  dailyTokens?: number | null;
}

/** Saves the organization's settings and records it in the audit log (provider, model, base URL — never the key). */
export async function saveModel(deps: ModelDeps, orgId: string, actor: AuditActor, input: ModelSettingsInput): Promise<void> {
  const previous = await getModelSettings(deps.db, orgId);
  let apiKey: string | null;
  if (input.apiKey === undefined) apiKey = previous?.apiKey ?? null;
  else if (input.apiKey === "") apiKey = null;
  else apiKey = await seal(secretOf(deps.config), input.apiKey, purpose(orgId));
  await saveModelSettings(deps.db, orgId, {
    provider: input.provider,
    baseUrl: input.baseUrl ?? null,
    model: input.model,
    apiKey,
    dailyTokens: input.dailyTokens ?? null,
    updatedAt: deps.clock.now(),
  });
  await recordAudit(deps.db, orgId, "model_settings.changed", actor, deps.clock.now(), null, {
    action: "saved",
    provider: input.provider,
    model: input.model,
    baseUrl: input.baseUrl?.replace(/[?#].*$/, "") ?? null,
    apiKey: input.apiKey === undefined ? "kept" : input.apiKey === "" ? "removed" : "replaced",
  });
}

/** Deletes the saved settings (audited); false when none were saved. */
export async function forgetModel(deps: ModelDeps, orgId: string, actor: AuditActor): Promise<boolean> {
  if (!(await deleteModelSettings(deps.db, orgId))) return false;
  await recordAudit(deps.db, orgId, "model_settings.changed", actor, deps.clock.now(), null, { action: "deleted" });
  return true;
}

export type TestOutcome =
  | {
      ok: true;
      answer: string;
      model: string;
      tokensIn: number;
      tokensOut: number;
      /** Whether the model answers a schema: how (json_schema or JSON mode), or why not. */
      structured: { ok: true; mode: "json_schema" | "json" } | { ok: false; error: string };
    }
  | { ok: false; error: string };

const Pong = v.strictObject({ answer: v.pipe(v.string(), v.maxLength(200)) });

/**
 * `crew model test` and the "Test connection" button: one tiny call that any answer passes
 * (reported as it came), then one tiny structured call that says whether structured output works.
 */
export async function testModel(connection: ModelConnection | null, log?: Logger): Promise<TestOutcome> {
  if (!connection) return { ok: false, error: "No model is connected: set CREW_MODEL_* or save one in Settings → Model." };
  const reply = await callForText(connection, { system: "Answer with the single word pong.", prompt: "ping" });
  if (!reply.ok) {
    log?.warn("model test failed", { error: reply.detail });
    return { ok: false, error: reply.message };
  }
  const structured = await callForObject(connection, {
    system: 'Answer with the JSON object {"answer": "pong"}.',
    messages: [{ role: "user", content: "ping" }],
    schema: Pong,
    maxOutputTokens: 50,
  });
  const usage = {
    tokensIn: reply.usage.tokensIn + structured.usage.tokensIn,
    tokensOut: reply.usage.tokensOut + structured.usage.tokensOut,
  };
  return {
    ok: true,
    answer: reply.text.trim().slice(0, 200),
    model: connection.model,
    ...usage,
    structured: structured.ok
      ? { ok: true, mode: structuredMode(connection) }
      : {
          ok: false,
          error:
            structured.kind === "invalid"
              ? `it answered, but not with the JSON asked for: ${structured.text.slice(0, 200)}`
              : structured.message,
        },
  };
}

/** The structured-output line of a test outcome, for the CLI and the settings page. */
export function describeStructured(outcome: Extract<TestOutcome, { ok: true }>): string {
  const s = outcome.structured;
  if (!s.ok) return `Structured output does not work: ${s.error}`;
  return s.mode === "json_schema"
    ? "Structured output works (response_format json_schema)."
    : "Structured output works in JSON mode (the server refused json_schema; the schema is in the prompt).";
}
