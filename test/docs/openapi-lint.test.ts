/**
 * GET /openapi.json lints clean with Redocly's recommended ruleset (issue 33): 0 errors, no unused
 * components (raised to an error here), an operationId on every operation and webhook, and
 * `security` stated on the webhooks (Crew signs them; the receiver presents nothing).
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("the OpenAPI document under Redocly's recommended rules", () => {
  it("has no errors and no unused components; webhooks have operationIds", async () => {
    const source = await (await fetch(`${s.url}/openapi.json`)).text();
    const config = await createConfig({
      extends: ["recommended"],
      rules: { "no-unused-components": "error", "operation-operationId": "error" },
    });
    const problems = await lintFromString({ source, absoluteRef: `${s.url}/openapi.json`, config });
    const errors = problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ""})`);
    expect(errors).toEqual([]);
    const doc = JSON.parse(source);
    for (const [name, item] of Object.entries<{ post: { operationId: string; security: unknown[] } }>(doc.webhooks)) {
      expect(item.post.operationId, name).toMatch(/Webhook$/);
      expect(item.post.security, name).toEqual([]);
    }
  });
});
