/**
 * Suggestions from every agent (issue 33): `?agent=` of GET /api/mcp/suggestions and crew_suggestions
 * accepts every agent whose catalog entry writes suggestions (inbox, calendar, finance, research,
 * slack …), the seed's nine stay valid, OpenAPI lists them, and the shared list stays in step with
 * the catalog.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOBS } from "../../src/agents/jobs.ts";
import { SUGGESTION_AGENTS } from "../../src/domain.ts";
import { connectHttp } from "../helpers/mcp.ts";
import { fastKey, seedSuggestion } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await startServer();
  const user = await s.createUser("pro", "suggestion-agents@example.com");
  key = await fastKey(s, user, ["read"]);
  await seedSuggestion(s, "inbox", "Answer the renewal mail", "high", s.clock.now() - 2000);
  await seedSuggestion(s, "finance", "Chase the overdue invoice", "medium", s.clock.now() - 1000);
});
afterAll(async () => {
  await s.close();
});

describe("?agent= for every agent that writes suggestions", () => {
  it("is the catalog's writers of suggestions plus the seed's nine", () => {
    const writers = JOBS.filter((j) => j.writes.includes("suggestions")).map((j) => j.id);
    const seed = ["product", "growth", "revenue", "content", "corpdev", "sales", "bdr", "compliance", "pulse"];
    expect([...SUGGESTION_AGENTS].sort()).toEqual([...new Set([...writers, ...seed])].sort());
  });

  it("filters by inbox over REST; a seed value stays valid; an unknown agent is a 400", async () => {
    const call = api(s.url, key);
    const inbox = await call("/api/mcp/suggestions?agent=inbox");
    expect(inbox.status).toBe(200);
    expect(inbox.json.suggestions.map((x: { title: string }) => x.title)).toEqual(["Answer the renewal mail"]);
    expect((await call("/api/mcp/suggestions?agent=pulse")).json).toEqual({ suggestions: [] });
    const bad = await call("/api/mcp/suggestions?agent=nobody");
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("inbox");
  });

  it("filters by finance over MCP", async () => {
    const client = await connectHttp(s.url, key);
    const result = await client.callTool({ name: "crew_suggestions", arguments: { agent: "finance" } });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { suggestions: { title: string }[] };
    expect(out.suggestions.map((x) => x.title)).toEqual(["Chase the overdue invoice"]);
    await client.close();
  });

  it("says so in OpenAPI", async () => {
    const doc = await (await fetch(`${s.url}/openapi.json`)).json();
    const param = doc.paths["/api/mcp/suggestions"].get.parameters.find((p: { name: string }) => p.name === "agent");
    expect(param.schema.enum).toEqual(expect.arrayContaining(["inbox", "calendar", "finance", "research", "slack", "product", "pulse"]));
  });
});
