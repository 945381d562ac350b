/**
 * One structured-output call to the connected model (SPEC §13) through the Vercel AI SDK:
 * `openai-compatible` (any /v1/chat/completions), `openai`, `anthropic`. The answer is checked
 * against a valibot schema here (not trusted to the provider: many OpenAI-compatible servers only
 * honour "answer in JSON"), so the caller gets either the object or the exact validation issues
 * to send back in its one retry.
 *
 * At most MAX_CONCURRENT_CALLS model calls run at a time per process; the rest wait their turn.
 * No SDK retries: a 401 or 429 is reported as it is, once. The API key never appears in an error.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { valibotSchema } from "@ai-sdk/valibot";
import { APICallError, generateObject, type LanguageModel, type ModelMessage, NoObjectGeneratedError, type Schema } from "ai";
import * as v from "valibot";
import type { ModelProvider } from "../../config.ts";
import { createLimiter } from "./limiter.ts";

// The SDK prints provider warnings (e.g. "schema not supported by this endpoint") to the console;
// the prompt carries the schema anyway, and log lines are ours to write.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface ModelConnection {
  provider: ModelProvider;
  baseUrl: string | null;
  model: string;
  apiKey: string | null;
  /**
   * How requests reach the endpoint. Unset for the operator's environment settings (trusted, SPEC
   * §16); an owner's saved base URL is user-supplied and goes through the outbound policy.
   */
  fetch?: typeof globalThis.fetch;
}

export const MAX_CONCURRENT_CALLS = 2;
/** A model call that takes longer than this is abandoned as unreachable. */
export const CALL_TIMEOUT_MS = 120_000;

const limiter = createLimiter(MAX_CONCURRENT_CALLS);

/** How many model calls run right now in this process (for tests and the benchmark). */
export const callsInFlight = () => limiter.active();

export function languageModel(c: ModelConnection): LanguageModel {
  const apiKey = c.apiKey ?? undefined;
  const baseURL = c.baseUrl ?? undefined;
  const fetch = c.fetch;
  switch (c.provider) {
    case "anthropic":
      return createAnthropic({ apiKey: apiKey ?? "none", baseURL, fetch })(c.model);
    case "openai":
      return createOpenAI({ apiKey: apiKey ?? "none", baseURL, fetch }).chat(c.model);
    default:
      return createOpenAICompatible({ name: "crew-model", baseURL: baseURL ?? "", apiKey, fetch }).chatModel(c.model);
  }
}

export interface Usage {
  tokensIn: number;
  tokensOut: number;
}

export type CallResult<T> =
  | { ok: true; value: T; usage: Usage }
  /** The model answered, but not with a valid object: `issues` says what is wrong, for the retry. */
  | { ok: false; kind: "invalid"; text: string; issues: string[]; usage: Usage }
  /** The call failed (unreachable, 401, 429, …): `message` says how, without the key. */
  | { ok: false; kind: "failed"; message: string; usage: Usage };

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

/** What went wrong, in words the owner can act on; never the key (scrubbed, should a server echo it). */
export function describeFailure(error: unknown, c: ModelConnection): string {
  let message: string;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const detail = (error.responseBody ?? error.message).replace(/\s+/g, " ").slice(0, 300);
    if (status === 401 || status === 403)
      message = `The model endpoint refused the credentials (HTTP ${status}): check the API key. ${detail}`;
    else if (status === 429) message = `The model endpoint is rate limiting or out of quota (HTTP 429). ${detail}`;
    else if (status === 404)
      message = `The model endpoint does not know this model or path (HTTP 404): check the base URL and model name. ${detail}`;
    else if (status !== undefined) message = `The model endpoint answered HTTP ${status}. ${detail}`;
    else message = `The model endpoint is unreachable at ${error.url}: ${error.message}`;
  } else if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    message = `The model did not answer within ${CALL_TIMEOUT_MS / 1000} s.`;
  } else {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    message = `The model call failed: ${error instanceof Error ? error.message : String(error)}${cause}`;
  }
  return c.apiKey ? message.split(c.apiKey).join("[key]") : message;
}

/**
 * One call asking for an object of `schema`. The JSON Schema goes into the system prompt too
 * (servers without structured outputs see it there).
 */
export async function callForObject<T extends v.GenericSchema>(
  c: ModelConnection,
  request: { system: string; messages: ModelMessage[]; schema: T; maxOutputTokens?: number },
): Promise<CallResult<v.InferOutput<T>>> {
  return limiter.run(async () => {
    try {
      const result = await generateObject({
        model: languageModel(c),
        // @ai-sdk/valibot builds on its own copy of the SDK's schema type; the runtime marker is shared (Symbol.for).
        schema: valibotSchema(request.schema) as unknown as Schema<v.InferOutput<T>>,
        system: request.system,
        messages: request.messages,
        maxRetries: 0,
        maxOutputTokens: request.maxOutputTokens ?? 4000,
        abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      return { ok: true as const, value: result.object as v.InferOutput<T>, usage: usageOf(result.usage) };
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error)) {
        const text = error.text ?? "";
        let issues: string[];
        try {
          const parsed = v.safeParse(request.schema, JSON.parse(text));
          issues = parsed.success ? ["The answer did not match the schema."] : describeIssues(parsed.issues);
        } catch {
          issues = ["The answer is not a JSON object: answer with the JSON object only, no prose or code fences."];
        }
        return { ok: false as const, kind: "invalid" as const, text, issues, usage: usageOf(error.usage) };
      }
      return { ok: false as const, kind: "failed" as const, message: describeFailure(error, c), usage: none };
    }
  });
}
