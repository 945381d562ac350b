/**
 * What tracing costs (src/docs/notes/tracing.md#cost): three server processes on one SQLite file,
 * the same release, measured interleaved (src/docs/notes/benchmark.md): one as shipped (no OTEL_*),
 * one with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a loopback sink that reads and drops what it
 * gets, and a second as-shipped one (the spread between two identical processes is the noise
 * floor the "off" cost has to be read against). Server CPU per request is the figure.
 *
 *   node --import tsx scripts/bench-tracing.ts      (BENCH_SECONDS, BENCH_ROUNDS as for npm run bench)
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { boot } from "../src/boot-app.ts";
import { silentLogger } from "../src/lib/log.ts";
import { startTracing } from "../src/lib/tracing-sdk.ts";
import * as bench from "./bench-lib.ts";

if (process.argv.includes("--serve")) {
  await startTracing(process.env);
  const booted = await boot(process.env, { log: silentLogger });
  bench.serve(booted, (req) => booted.app.fetch(req));
} else {
  const sink = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  try {
    await bench.withServer("scripts/bench-tracing.ts", async (off) => {
      const again = await off.spawnPeer();
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = sinkUrl;
      process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "http/protobuf";
      const on = await off.spawnPeer();
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      const seconds = bench.secondsPerScenario(5);
      const headers = { authorization: `Bearer ${off.key}` };
      const post = { method: "POST" as const, headers: { ...headers, "content-type": "application/json" }, body: '{"title":"Traced?"}' };
      const rows = await bench.interleaved(
        [
          { name: "GET /api/mcp/agents, tracing off", options: { url: `${off.url}/api/mcp/agents`, headers } },
          { name: "GET /api/mcp/agents, tracing off (second process)", options: { url: `${again}/api/mcp/agents`, headers } },
          { name: "GET /api/mcp/agents, tracing on", options: { url: `${on}/api/mcp/agents`, headers } },
          { name: "POST /api/mcp/actions, tracing off", options: { url: `${off.url}/api/mcp/actions`, ...post } },
          { name: "POST /api/mcp/actions, tracing off (second process)", options: { url: `${again}/api/mcp/actions`, ...post } },
          { name: "POST /api/mcp/actions, tracing on", options: { url: `${on}/api/mcp/actions`, ...post } },
        ],
        seconds,
      );
      console.log(`Tracing cost (${bench.loadSummary(seconds)}, ${bench.ROUNDS} interleaved rounds, medians)`);
      bench.printTable(rows);
      bench.reportFailures(rows);
    });
  } finally {
    sink.close();
  }
}
