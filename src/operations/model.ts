/**
 * The model connection (src/docs/notes/model.md): show it, save it (owners' settings; the environment wins),
 * forget it, test it with one tiny call. REST with an admin credential; /settings/model calls the
 * same functions. The API key is write-only: stored sealed, never returned.
 */
import * as v from "valibot";
import { actorOf, writeAccess } from "../auth/access.ts";
import { MODEL_PROVIDERS } from "../config.ts";
import { ApiError } from "../errors.ts";
import { forgetModel, type ModelStatus, modelStatus, resolveModel, saveModel, testModel } from "../integrations/model/settings.ts";
import { privateTargetProblem } from "../integrations/outbound-targets.ts";
import { isoOrNull } from "../lib/clock.ts";
import { defineOperation } from "./registry.ts";
import { DailyTokens, DateTime, maxChars } from "./schemas.ts";

const tags = ["Integrations"];

const Status = v.object({
  connected: v.pipe(v.boolean(), v.description("Whether model-backed agents can run.")),
  source: v.pipe(
    v.nullable(v.picklist(["environment", "settings"])),
    v.description("environment: CREW_MODEL_* is set and wins over the saved settings; settings: saved by an owner."),
  ),
  provider: v.nullable(v.picklist(MODEL_PROVIDERS)),
  baseUrl: v.nullable(v.string()),
  model: v.nullable(v.string()),
  hasApiKey: v.pipe(v.boolean(), v.description("Whether an API key is set (it is never shown).")),
  dailyTokens: v.pipe(v.number(), v.description("Tokens the organization's model-backed runs may spend per UTC day.")),
  tokensToday: v.pipe(v.number(), v.description("Tokens spent since midnight UTC.")),
  updatedAt: v.pipe(v.nullable(DateTime), v.description("When the saved settings last changed.")),
});

const toWire = (s: ModelStatus): v.InferOutput<typeof Status> => ({ ...s, updatedAt: isoOrNull(s.updatedAt) });

function urlOrNull(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

export const ModelSettingsInput = v.pipe(
  v.strictObject({
    provider: v.pipe(
      v.picklist(MODEL_PROVIDERS, `Must be one of ${MODEL_PROVIDERS.join(", ")}.`),
      v.description("openai-compatible: any /v1/chat/completions endpoint (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter, OpenAI)."),
    ),
    baseUrl: v.optional(
      v.pipe(
        v.string("Must be a string."),
        v.trim(),
        maxChars(2000, "Must be at most 2000 characters."),
        v.check(
          (u) => u === "" || /^https?:$/.test(urlOrNull(u)?.protocol ?? ""),
          "Must be an http or https URL, e.g. http://localhost:11434/v1.",
        ),
        v.description(
          "The endpoint's base URL, ending before /chat/completions (e.g. http://localhost:11434/v1). Optional for openai and anthropic.",
        ),
      ),
    ),
    model: v.pipe(
      v.string("Must be a string."),
      v.trim(),
      v.minLength(1, "Must not be empty."),
      maxChars(200, "Must be at most 200 characters."),
      v.description("The model name, e.g. llama3.2, gpt-4o-mini, claude-sonnet-4-5."),
    ),
    apiKey: v.optional(
      v.pipe(
        v.string("Must be a string."),
        maxChars(1000, "Must be at most 1000 characters."),
        v.description('Stored encrypted, never shown again. Leave it out to keep the saved key; "" removes it.'),
      ),
    ),
    dailyTokens: v.optional(DailyTokens("Tokens per UTC day for the organization (default 1000000); CREW_MODEL_DAILY_TOKENS wins.")),
  }),
  // A partial check runs even when other fields have issues, so the form names every problem at once.
  v.forward(
    v.partialCheck(
      [["provider"], ["baseUrl"]],
      (input) => input.provider !== "openai-compatible" || Boolean(input.baseUrl),
      "Required for openai-compatible.",
    ),
    ["baseUrl"],
  ),
);

/**
 * Why the outbound policy (src/docs/notes/outbound-requests.md) will refuse this saved base URL, in
 * words that name the way out, or null. A model on this machine (the README's Ollama) is the usual
 * case: the refusal is said when the address is saved or tested, not only in the log.
 */
function localModelProblem(baseUrl: string | undefined | null, allowPrivate: boolean): string | null {
  if (!baseUrl || !privateTargetProblem(baseUrl, allowPrivate)) return null;
  return `${new URL(baseUrl).origin} is a loopback, private or link-local address, which Crew refuses for an address saved in Settings → Model while ALLOW_PRIVATE_TARGETS is off. Set ALLOW_PRIVATE_TARGETS=1 (a model on this machine or network), or configure the model in the environment with CREW_MODEL_PROVIDER, CREW_MODEL_BASE_URL and CREW_MODEL (the operator's environment is trusted).`;
}

export const getModelIntegrationOp = defineOperation({
  id: "getModelIntegration",
  role: "owner",
  summary: "Show the model connection",
  description:
    "Which language model the model-backed agents use (provider, base URL, model), whether it comes from the environment (CREW_MODEL_*, which wins) or the saved settings, the daily token budget and what today's runs spent. Never the API key.",
  input: v.strictObject({}),
  output: Status,
  rest: { method: "GET", path: "/api/integrations/model", access: writeAccess(), from: "none", tags },
  handler: async (ctx) => toWire(await modelStatus(ctx, ctx.principal.orgId)),
});

export const saveModelIntegrationOp = defineOperation({
  id: "saveModelIntegration",
  role: "owner",
  summary: "Save the model connection",
  description:
    "Saves the organization's model settings (replacing earlier ones). A base URL on a loopback, private or link-local address is refused (400) unless ALLOW_PRIVATE_TARGETS is on; a model on this machine can also be set with CREW_MODEL_* in the environment. The API key is stored encrypted (AES-GCM under CREW_SECRET) and never returned. Nothing is called: use POST /api/integrations/model/test. When CREW_MODEL_* is set in the environment, it keeps winning; the saved settings apply once it is removed.",
  input: ModelSettingsInput,
  output: Status,
  rest: { method: "POST", path: "/api/integrations/model", access: writeAccess(), from: "body", tags },
  handler: async (ctx, input) => {
    const local = localModelProblem(input.baseUrl, ctx.config.allowPrivateTargets);
    if (local)
      throw new ApiError(400, "invalid_request", `The baseUrl is refused: ${local}`, { issues: [{ path: "baseUrl", message: local }] });
    await saveModel(ctx, ctx.principal.orgId, actorOf(ctx.principal), { ...input, baseUrl: input.baseUrl || undefined });
    return toWire(await modelStatus(ctx, ctx.principal.orgId));
  },
});

export const deleteModelIntegrationOp = defineOperation({
  id: "deleteModelIntegration",
  role: "owner",
  summary: "Forget the model connection",
  description: "Deletes the saved model settings and key. 404 when none are saved. The environment's model (CREW_MODEL_*) is not affected.",
  input: v.strictObject({}),
  output: v.object({ ok: v.literal(true) }),
  rest: { method: "DELETE", path: "/api/integrations/model", access: writeAccess(), from: "none", tags },
  handler: async (ctx) => {
    if (!(await forgetModel(ctx, ctx.principal.orgId, actorOf(ctx.principal))))
      throw new ApiError(404, "not_found", "No model settings are saved.");
    return { ok: true as const };
  },
});

export const testModelIntegrationOp = defineOperation({
  id: "testModelIntegration",
  role: "owner",
  summary: "Test the model connection",
  description:
    'Makes one tiny call to the model in use (it is asked to answer "pong"; any answer passes) and reports the answer, or the exact error (unreachable, 401, 404 model unknown, 429); then one tiny structured call says whether structured output works (`structured.mode`: `json_schema`, or `json` when the server refused json_schema). Costs a few tokens; not counted against the daily budget.',
  input: v.strictObject({}),
  output: v.variant("ok", [
    v.object({
      ok: v.literal(true),
      answer: v.string(),
      model: v.string(),
      tokensIn: v.number(),
      tokensOut: v.number(),
      structured: v.variant("ok", [
        v.object({ ok: v.literal(true), mode: v.picklist(["json_schema", "json"]) }),
        v.object({ ok: v.literal(false), error: v.string() }),
      ]),
    }),
    v.object({ ok: v.literal(false), error: v.pipe(v.string(), v.description("What failed, as the endpoint said it.")) }),
  ]),
  rest: { method: "POST", path: "/api/integrations/model/test", access: writeAccess(), from: "none", tags },
  handler: async (ctx) => {
    const model = await resolveModel(ctx, ctx.principal.orgId);
    // Saved before ALLOW_PRIVATE_TARGETS was turned off: say why, rather than "could not be reached".
    const local = model?.source === "settings" ? localModelProblem(model.baseUrl, ctx.config.allowPrivateTargets) : null;
    return local ? { ok: false as const, error: local } : testModel(model, ctx.log);
  },
});
