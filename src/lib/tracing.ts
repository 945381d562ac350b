/**
 * Traces (src/docs/notes/tracing.md): OpenTelemetry spans for requests, operations, agent runs,
 * model calls, outbound requests and database statements, off unless the entry turned them on
 * (OTEL_EXPORTER_OTLP_ENDPOINT, `startTracing`). Off, every helper here is one boolean test: no
 * span, context or header object is made, so the hot path pays nothing.
 *
 * Spans carry names and patterns, never values: a route pattern, an operation id, an agent, a
 * model and its token counts; never a raw path, a statement's arguments, a prompt or an answer.
 */
import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";

let tracer: Tracer | null = null;

/** Turns tracing on for this process, with the SDK's tracer (the entry does it once, before the app is built). */
export function enableTracing(t: Tracer): void {
  tracer = t;
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
const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

const notesOf = (span: Span): SpanNotes => ({
  set: (attributes) => span.setAttributes(attributes),
  rename: (name) => span.updateName(name),
  fail: (message) => span.setStatus({ code: SpanStatusCode.ERROR, message }),
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
  if (!tracer) return work(null);
  const active = tracer;
  const base = options.parent
    ? propagation.extract(context.active(), options.parent, {
        keys: () => ["traceparent", "tracestate"],
        get: (carrier, key) => carrier(key) ?? undefined,
      })
    : context.active();
  return context.with(base, () =>
    active.startActiveSpan(name, { kind: KINDS[options.kind ?? "internal"], attributes }, async (span) => {
      try {
        return await work(notesOf(span));
      } catch (error) {
        span.recordException({ name: error instanceof Error ? error.name : "Error", message: "failed" });
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
        throw error;
      } finally {
        span.end();
      }
    }),
  );
}

/** The active trace's W3C headers (`traceparent`, `tracestate`) for an outbound request; none with tracing off. */
export function traceHeaders(): Record<string, string> {
  if (!tracer) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The active trace id, for the access log line; undefined with tracing off or outside a trace. */
export function currentTraceId(): string | undefined {
  if (!tracer) return undefined;
  const id = trace.getSpanContext(context.active())?.traceId;
  return id && id !== "00000000000000000000000000000000" ? id : undefined;
}
