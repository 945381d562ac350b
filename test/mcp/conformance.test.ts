/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against /mcp. It needs
 * Node 22 APIs, so it runs under the bundled bun; it cannot send a header, so a loopback proxy in
 * front adds the Bearer key. Scenarios that do not apply are listed, with reasons, in
 * conformance-expected-failures.yml; the suite itself fails when the list is stale.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAuthProxy } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUN = join(ROOT, "node_modules/.bin/bun");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const EXPECTED = fileURLToPath(new URL("./conformance-expected-failures.yml", import.meta.url));
/** At least these must run and pass every check (src/docs/notes/testing.md#mcp-conformance-suite: what applies to a server with its own tools). */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "dns-rebinding-protection",
  "resources-list",
  "prompts-list",
  "completion-complete",
];

let s: TestServer;
let proxy: Awaited<ReturnType<typeof startAuthProxy>>;
const out = mkdtempSync(join(tmpdir(), "crew-conformance-"));

beforeAll(async () => {
  proxy = await startAuthProxy();
  // The suite's "valid" DNS-rebinding request sends the proxy's own origin: Crew must accept it.
  s = await startServer({ env: { ALLOWED_ORIGINS: `${proxy.url},http://localhost:${proxy.port}` } });
  const { key } = await s.userWithKey("operator", ["admin"]);
  proxy.setTarget(s.url, key);
});
afterAll(async () => {
  await proxy.close();
  await s.close();
  rmSync(out, { recursive: true, force: true });
});

function runSuite(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(BUN, [SUITE, "server", "--url", `${proxy.url}/mcp`, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Per revision: the baseline of scenarios that do not apply, and the scenarios that must pass. */
const REVISIONS = [
  { version: "2025-11-25", expected: EXPECTED, applicable: APPLICABLE },
  {
    version: "2026-07-28",
    expected: fileURLToPath(new URL("./conformance-expected-failures-2026.yml", import.meta.url)),
    // No initialize, ping or logging at this revision; the suite's 2026 set has no scenario for them.
    applicable: [
      "tools-list",
      "dns-rebinding-protection",
      "resources-list",
      "prompts-list",
      "completion-complete",
      "server-sse-multiple-streams",
    ],
  },
];

describe("MCP conformance suite", () => {
  it.each(REVISIONS)(
    "at $version passes every applicable scenario; the rest fail only as listed in the baseline",
    async ({ version, expected, applicable }) => {
      const dirOut = join(out, version);
      const { code, output } = await runSuite(["--spec-version", version, "--expected-failures", expected, "-o", dirOut]);
      expect(output).toContain("Baseline check passed");
      expect(code, output).toBe(0);

      const results = new Map<string, Check[]>();
      for (const dir of readdirSync(dirOut)) {
        const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
        results.set(scenario, JSON.parse(readFileSync(join(dirOut, dir, "checks.json"), "utf8")));
      }
      for (const scenario of applicable) {
        const checks = results.get(scenario) ?? [];
        expect(checks.length, scenario).toBeGreaterThan(0);
        const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
        expect(bad, scenario).toEqual([]);
      }
    },
  );
});
