/**
 * Traces (src/docs/notes/tracing.md): OpenTelemetry spans for requests, operations, agent runs,
 * model calls, outbound requests and database statements, off unless the entry turned them on
 * (OTEL_EXPORTER_OTLP_ENDPOINT, `startTracing`). Off, every helper here is one boolean test: no
 * span, context or header object is made, so the hot path pays nothing.
 *
 * Spans carry names and patterns, never values: a route pattern, an operation id, an agent, a
 * model and its token counts; never a raw path, a statement's arguments, a prompt or an answer.
 */
import type { Attributes, Span, Tracer } from "@opentelemetry/api";

/** The API module, handed over with the tracer: not even loaded in a process that does not trace. */
type Api = typeof import("@opentelemetry/api");

let tracer: Tracer | null = null;
let otel: Api | null = null;

/** Turns tracing on for this process, with the SDK's tracer (the entry does it once, before the app is built). */
export function enableTracing(api: Api, t: Tracer): void {
  otel = api;
  tracer = t;
}

/** Turns tracing off again (the SDK stopped): later work makes no spans. */
export function disableTracing(): void {
  otel = null;
  tracer = null;
}

export function tracingEnabled(): boolean {
  return tracer !== null;
}

/** What a span's work may add once it knows more (the route that answered, the tokens used, the outcome). */
export interface SpanNotes {
  set(attributes: Attributes): void;
  /** Names the span once its name is known (a request's route pattern, after routing). */
  rename(name: string): void;
  /** Marks the span failed with a short message (no values of the request). */
  fail(message: string): void;
}

export type SpanKindName = "server" | "client" | "internal";

const notesOf = (api: Api, span: Span): SpanNotes => ({
  set: (attributes) => span.setAttributes(attributes),
  rename: (name) => span.updateName(name),
  fail: (message) => span.setStatus({ code: api.SpanStatusCode.ERROR, message }),
});

/**
 * Runs `work` inside a span named `name` (the child of the active one, or of `parent`: headers
 * carrying a W3C `traceparent`, RFC-style lower-case names). With tracing off, runs `work(null)`.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (notes: SpanNotes | null) => Promise<T>,
  options: { kind?: SpanKindName; parent?: (name: string) => string | null | undefined } = {},
): Promise<T> {
  if (!tracer || !otel) return work(null);
  const active = tracer;
  const api = otel;
  const { context, propagation } = api;
  const kind = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, internal: api.SpanKind.INTERNAL }[options.kind ?? "internal"];
  const base = options.parent
    ? propagation.extract(context.active(), options.parent, {
        keys: () => ["traceparent", "tracestate"],
        get: (carrier, key) => carrier(key) ?? undefined,
      })
    : context.active();
  return context.with(base, () =>
    active.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        return await work(notesOf(api, span));
      } catch (error) {
        span.recordException({ name: error instanceof Error ? error.name : "Error", message: "failed" });
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
        throw error;
      } finally {
        span.end();
      }
    }),
  );
}

/** The active trace's W3C headers (`traceparent`, `tracestate`) for an outbound request; none with tracing off. */
export function traceHeaders(): Record<string, string> {
  if (!tracer || !otel) return {};
  const carrier: Record<string, string> = {};
  otel.propagation.inject(otel.context.active(), carrier);
  return carrier;
}

/** The active trace id, for the access log line; undefined with tracing off or outside a trace. */
export function currentTraceId(): string | undefined {
  if (!tracer || !otel) return undefined;
  const id = otel.trace.getSpanContext(otel.context.active())?.traceId;
  return id && id !== "00000000000000000000000000000000" ? id : undefined;
}
