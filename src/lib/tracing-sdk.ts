/**
 * Starts OpenTelemetry's SDK when the environment asks for traces (src/docs/notes/tracing.md):
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none`. Everything else is the SDK's reading of
 * the standard `OTEL_*` variables: `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default,
 * or `http/json`), headers, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, the sampler, the batch
 * processor. Only traces: metrics stay Prometheus's (`/metrics`) and logs stay JSON lines, unless
 * `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` say otherwise. Loaded by the Node entry only when
 * tracing is on, so the SDK costs nothing otherwise.
 */
import { disableTracing, enableTracing } from "./tracing.ts";

type Env = Record<string, string | undefined>;

export function tracingWanted(env: Env): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim();
  if (!endpoint) return false;
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return false;
  return (env.OTEL_TRACES_EXPORTER ?? "").trim().toLowerCase() !== "none";
}

/** Starts the SDK (the process's env is the SDK's configuration) and answers how to flush and stop it. */
export async function startTracing(env: Env): Promise<{ stop(): Promise<void> } | null> {
  if (!tracingWanted(env)) return null;
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const api = await import("@opentelemetry/api");
  // The SDK reads process.env: traces only, unless the operator asked for more.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  process.env.OTEL_SERVICE_NAME ??= "crew";
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  enableTracing(api, api.trace.getTracer("crew"));
  return {
    stop: async () => {
      disableTracing();
      await sdk.shutdown();
    },
  };
}
