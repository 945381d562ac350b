/**
 * One structured-output call to the connected model (src/docs/notes/model.md) through the Vercel AI SDK:
 * `openai-compatible` (any /v1/chat/completions), `openai`, `anthropic`. The answer's JSON Schema
 * goes to the provider as structured output (`response_format: json_schema` for OpenAI and
 * OpenAI-compatible servers, Anthropic's output format or forced tool) and, in words, at the end
 * of the system prompt for servers that ignore it. A server that refuses `json_schema` (HTTP 400)
 * is asked once more in JSON mode, and that connection stays in JSON mode for the process.
 * The answer is checked against the valibot schema here (not trusted to the provider), so the
 * caller gets either the object or the exact validation issues to send back in its one retry.
 *
 * At most MAX_CONCURRENT_CALLS model calls run at a time per process and MAX_CALLS_PER_ORG per
 * organization, so one organization's slow endpoint only queues its own runs.
 * No SDK retries; Crew retries a 429 or 5xx once, after its Retry-After (at most 30 s) or 2 s
 * (src/docs/notes/prompt-injection.md#small-models); a 401 is reported as it is. An answer whose
 * JSON sits in a code fence or after a sentence, or whose enum values differ in case or by a
 * synonym, is repaired before validation (answer-repair.ts). The API key never appears in an error,
 * and an endpoint that cannot be reached reads the same whatever the reason (the log says which).
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { valibotSchema } from "@ai-sdk/valibot";
import { APICallError, generateObject, generateText, type LanguageModel, type ModelMessage, NoObjectGeneratedError, type Schema } from "ai";
import * as v from "valibot";
import type { ModelProvider } from "../../config.ts";
import { inSpan, traceHeaders, tracingEnabled } from "../../lib/tracing.ts";
import { extractJson, matchEnums } from "./answer-repair.ts";
import { createKeyedLimiter } from "./limiter.ts";
import { answerJsonSchema, describeAnswer } from "./schema-prompt.ts";

// The SDK prints provider warnings to the console; the prompt carries the schema anyway, and log
// lines are ours to write.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface ModelConnection {
  provider: ModelProvider;
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  /**
   * How requests reach the endpoint. Unset for the operator's environment settings (trusted, src/docs/notes/outbound-requests.md); an owner's saved base URL is user-supplied and goes through the outbound policy.
   */
  fetch?: typeof globalThis.fetch;
}

export const MAX_CONCURRENT_CALLS = 2;
/** Of those, at most this many for one organization. */
export const MAX_CALLS_PER_ORG = 1;
/** A model call that takes longer than this is abandoned as unreachable. */
export const CALL_TIMEOUT_MS = 120_000;

const limiter = createKeyedLimiter(MAX_CONCURRENT_CALLS, MAX_CALLS_PER_ORG);

/** The schema in words, worked out once per schema object (the agents' schemas are built once). */
const descriptions = new WeakMap<v.GenericSchema, string>();
function describedSchema(schema: v.GenericSchema): string {
  let text = descriptions.get(schema);
  if (text === undefined) {
    text = describeAnswer(answerJsonSchema(schema));
    descriptions.set(schema, text);
  }
  return text;
}

/** The AI SDK's schema of each answer schema, converted once (the agents' schemas are built once; converting costs a run ~1 ms). */
const sdkSchemas = new WeakMap<v.GenericSchema, unknown>();
function sdkSchema<T extends v.GenericSchema>(schema: T): Schema<v.InferOutput<T>> {
  let converted = sdkSchemas.get(schema);
  if (converted === undefined) {
    converted = valibotSchema(schema);
    sdkSchemas.set(schema, converted);
  }
  // @ai-sdk/valibot builds on its own copy of the SDK's schema type; the runtime marker is shared (Symbol.for).
  return converted as Schema<v.InferOutput<T>>;
}

/** Connections whose server refused `json_schema`: asked in JSON mode from then on (this process). */
const jsonModeOnly = new Set<string>();
const connectionKey = (c: ModelConnection) => `${c.provider} ${c.baseUrl ?? ""} ${c.model}`;
/** How structured output is asked of this connection now. */
export const structuredMode = (c: ModelConnection): "json_schema" | "json" =>
  c.provider === "openai-compatible" && jsonModeOnly.has(connectionKey(c)) ? "json" : "json_schema";

/** How many model calls run right now in this process (for tests and the benchmark). */
export const callsInFlight = () => limiter.active();

export function languageModel(c: ModelConnection, mode: "json_schema" | "json" = structuredMode(c)): LanguageModel {
  const apiKey = c.apiKey ?? undefined;
  const baseURL = c.baseUrl ?? undefined;
  const fetch = withTraceHeaders(c.fetch);
  switch (c.provider) {
    case "anthropic":
      return createAnthropic({ apiKey: apiKey ?? "none", baseURL, fetch })(c.model);
    case "openai":
      return createOpenAI({ apiKey: apiKey ?? "none", baseURL, fetch }).chat(c.model);
    default:
      return createOpenAICompatible({
        name: "crew-model",
        baseURL: baseURL ?? "",
        apiKey,
        fetch,
        supportsStructuredOutputs: mode === "json_schema",
      }).chatModel(c.model);
  }
}

export interface Usage {
  tokensIn: number;
  tokensOut: number;
}

export type CallResult<T> =
  /** `repairs`: what was repaired in the answer before it validated (a fence taken off, an enum matched). */
  | { ok: true; value: T; usage: Usage; repairs?: string[]; retried?: boolean }
  /** The model answered, but not with a valid object: `issues` says what is wrong, for the retry. */
  | { ok: false; kind: "invalid"; text: string; issues: string[]; usage: Usage }
  /** The call failed (unreachable, 401, 429, …): `message` says how, without the key. */
  | { ok: false; kind: "failed"; message: string; detail: string; usage: Usage };

const none: Usage = { tokensIn: 0, tokensOut: 0 };
const usageOf = (u: { inputTokens?: number; outputTokens?: number } | undefined): Usage => ({
  tokensIn: u?.inputTokens ?? 0,
  tokensOut: u?.outputTokens ?? 0,
});

/** Issues as one line each: `actions[0].priority: Must be one of …`. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
    return `${path.replace(/^\./, "") || "(the object)"}: ${issue.message}`;
  });
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : "the model endpoint";
  } catch {
    return "the model endpoint";
  }
};

/** Everything an error says, causes included: for the log only (addresses, socket codes, policy refusals). */
export function failureDetail(error: unknown, c: ModelConnection): string {
  const parts: string[] = [];
  for (let e: unknown = error; e && parts.length < 4; e = e instanceof Error ? e.cause : undefined) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
  const detail = parts.join(" ← ");
  return c.apiKey ? detail.split(c.apiKey).join("[key]") : detail;
}

/**
 * What went wrong, in words the owner can act on; never the key (scrubbed, should a server echo
 * it). A request that got no answer reads the same whether the outbound policy refused the address
 * or the network failed (src/docs/notes/outbound-requests.md: no port scanning through error texts); failureDetail says which.
 */
export function describeFailure(error: unknown, c: ModelConnection): string {
  let message: string;
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  if (APICallError.isInstance(error) && status !== undefined) {
    const detail = (error.responseBody ?? error.message).replace(/\s+/g, " ").slice(0, 300);
    if (status === 401 || status === 403)
      message = `The model endpoint refused the credentials (HTTP ${status}): check the API key. ${detail}`;
    else if (status === 429) message = `The model endpoint is rate limiting or out of quota (HTTP 429). ${detail}`;
    else if (status === 404)
      message = `The model endpoint does not know this model or path (HTTP 404): check the base URL and model name. ${detail}`;
    else message = `The model endpoint answered HTTP ${status}. ${detail}`;
  } else if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    message = `The model did not answer within ${CALL_TIMEOUT_MS / 1000} s.`;
  } else {
    const url = APICallError.isInstance(error) ? error.url : (c.baseUrl ?? undefined);
    message = `The model endpoint at ${originOf(url)} could not be reached: check the base URL and that the server is running.`;
  }
  return c.apiKey ? message.split(c.apiKey).join("[key]") : message;
}

const refusesJsonSchema = (error: unknown) => APICallError.isInstance(error) && error.statusCode === 400;

export interface ObjectRequest<T extends v.GenericSchema> {
  system: string;
  messages: ModelMessage[];
  schema: T;
  maxOutputTokens?: number;
  /** The organization the call is for: its calls share MAX_CALLS_PER_ORG slots. */
  orgId?: string;
  /** How the one retry after a 429 or 5xx waits (tests inject it). */
  sleep?: (ms: number) => Promise<void>;
}

/** The longest Retry-After honoured before the one retry; a longer one is waited for only this long. */
export const MAX_RETRY_AFTER_MS = 30_000;
/** The wait before the retry when the server names none. */
export const DEFAULT_RETRY_MS = 2_000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether a failed call is worth one more try: rate limited or a server error. */
const retryable = (error: unknown) =>
  APICallError.isInstance(error) && error.statusCode !== undefined && (error.statusCode === 429 || error.statusCode >= 500);

/** RFC 9110 §10.2.3: Retry-After in seconds or as an HTTP date; bounded by MAX_RETRY_AFTER_MS. */
export function retryDelay(error: unknown, now = Date.now()): number {
  const header = APICallError.isInstance(error) ? error.responseHeaders?.["retry-after"] : undefined;
  if (header === undefined || header.trim() === "") return DEFAULT_RETRY_MS;
  const seconds = Number(header.trim());
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : DEFAULT_RETRY_MS;
}

/** Answer schemas in JSON Schema, for the enum repair (built once per schema object). */
const repairSchemas = new WeakMap<v.GenericSchema, ReturnType<typeof answerJsonSchema>>();
function repairSchema(schema: v.GenericSchema) {
  let known = repairSchemas.get(schema);
  if (!known) {
    known = answerJsonSchema(schema);
    repairSchemas.set(schema, known);
  }
  return known;
}

/** The answer repaired and validated, or the issues to send back. */
function repaired<T extends v.GenericSchema>(
  schema: T,
  text: string,
): { ok: true; value: v.InferOutput<T>; repairs: string[] } | { ok: false; issues: string[] } {
  const extracted = extractJson(text);
  if (!extracted)
    return { ok: false, issues: ["The answer is not a JSON object: answer with the JSON object only, no prose or code fences."] };
  const repairs = extracted.repaired ? [extracted.repaired] : [];
  const value = matchEnums(extracted.value, repairSchema(schema), repairs);
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return { ok: true, value: parsed.output, repairs };
  return { ok: false, issues: describeIssues(parsed.issues) };
}

/**
 * One call asking for an object of `schema`: strict (unknown fields are issues), its JSON Schema
 * sent as structured output and described at the end of the system prompt.
 */
export function callForObject<T extends v.GenericSchema>(
  c: ModelConnection,
  request: ObjectRequest<T>,
): Promise<CallResult<v.InferOutput<T>>> {
  return tracedModelCall(c, () => callForObjectUntraced(c, request));
}

async function callForObjectUntraced<T extends v.GenericSchema>(
  c: ModelConnection,
  request: ObjectRequest<T>,
): Promise<CallResult<v.InferOutput<T>>> {
  const system = `${request.system}\n\n${describedSchema(request.schema)}`;
  const attempt = (mode: "json_schema" | "json") =>
    generateObject({
      model: languageModel(c, mode),
      schema: sdkSchema(request.schema),
      system,
      messages: request.messages,
      maxRetries: 0,
      maxOutputTokens: request.maxOutputTokens ?? 4000,
      abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      // Not the providers' strict mode: it demands every field be required, and the answers have optional ones.
      providerOptions: { openai: { strictJsonSchema: false }, "crew-model": { strictJsonSchema: false } },
    });
  const sleep = request.sleep ?? realSleep;
  let retried = false;
  // One more try after a 429 or 5xx, before the caller's validation retry (src/docs/notes/prompt-injection.md#small-models).
  const once = async (mode: "json_schema" | "json") => {
    try {
      return await attempt(mode);
    } catch (error) {
      if (retried || !retryable(error)) throw error;
      retried = true;
      await sleep(retryDelay(error));
      return attempt(mode);
    }
  };
  return limiter.run(request.orgId ?? "", async () => {
    try {
      const mode = structuredMode(c);
      let result: Awaited<ReturnType<typeof attempt>>;
      try {
        result = await once(mode);
      } catch (error) {
        if (!(c.provider === "openai-compatible" && mode === "json_schema" && refusesJsonSchema(error))) throw error;
        // The server refused `json_schema`: once more in JSON mode, and JSON mode from now on if that works.
        result = await once("json");
        jsonModeOnly.add(connectionKey(c));
      }
      return { ok: true as const, value: result.object as v.InferOutput<T>, usage: usageOf(result.usage), ...(retried && { retried }) };
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) {
        const text = error.text ?? "";
        const fixed = repaired(request.schema, text);
        if (fixed.ok)
          return {
            ok: true as const,
            value: fixed.value,
            usage: usageOf(error.usage),
            repairs: fixed.repairs,
            ...(retried && { retried }),
          };
        return { ok: false as const, kind: "invalid" as const, text, issues: fixed.issues, usage: usageOf(error.usage) };
      }
      return {
        ok: false as const,
        kind: "failed" as const,
        message: describeFailure(error, c),
        detail: failureDetail(error, c),
        usage: none,
      };
    }
  });
}

/** One plain text call (the connection test's tiny request): any answer will do. */
export async function callForText(
  c: ModelConnection,
  request: { system: string; prompt: string; maxOutputTokens?: number; orgId?: string },
): Promise<{ ok: true; text: string; usage: Usage } | { ok: false; message: string; detail: string }> {
  return limiter.run(request.orgId ?? "", async () => {
    try {
      const result = await generateText({
        model: languageModel(c),
        system: request.system,
        prompt: request.prompt,
        maxRetries: 0,
        maxOutputTokens: request.maxOutputTokens ?? 50,
        abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      return { ok: true as const, text: result.text, usage: usageOf(result.usage) };
    } catch (error) {
      return { ok: false as const, message: describeFailure(error, c), detail: failureDetail(error, c) };
    }
  });
}

/**
 * A span per model call (src/docs/notes/tracing.md): the provider, the model, the outcome and the
 * tokens; never the prompt or the answer. With tracing off, the call itself.
 */
function tracedModelCall<R extends { ok: boolean; usage?: Usage; kind?: string }>(c: ModelConnection, call: () => Promise<R>): Promise<R> {
  if (!tracingEnabled()) return call();
  return inSpan(
    `model ${c.model}`,
    { "gen_ai.system": c.provider, "gen_ai.request.model": c.model },
    async (span) => {
      const result = await call();
      span?.set({
        "crew.model.outcome": result.ok ? "ok" : (result.kind ?? "failed"),
        ...(result.usage
          ? { "gen_ai.usage.input_tokens": result.usage.tokensIn, "gen_ai.usage.output_tokens": result.usage.tokensOut }
          : {}),
      });
      if (!result.ok) span?.fail(result.kind ?? "failed");
      return result;
    },
    { kind: "client" },
  );
}

/** The provider's fetch, carrying the active trace's `traceparent` (none with tracing off). */
function withTraceHeaders(base: typeof globalThis.fetch | undefined): typeof globalThis.fetch | undefined {
  if (!tracingEnabled()) return base;
  const send = base ?? globalThis.fetch;
  return (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [name, value] of Object.entries(traceHeaders())) if (!headers.has(name)) headers.set(name, value);
    return send(input, { ...init, headers });
  };
}
