/**
 * Issue 35 item 4 (SPEC §25, discovery for registries): `GET {base}/mcp/server-card` answers the
 * Server Card shape (one "/" in the name, the remotes), public and without a credential, linked
 * from /.well-known/mcp.json; `crew mcp server-json` prints a server.json of the registry schema
 * 2025-12-11 with the same name and remotes; `crew mcp` alone is still the stdio server's command.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_CARD_SCHEMA, SERVER_JSON_SCHEMA } from "../../src/docs/server-card.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

/** The registry's name rule (server.schema.json 2025-12-11): a namespace, exactly one "/", a name. */
const REGISTRY_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

describe("the Server Card", () => {
  it("is served at /mcp/server-card without a credential, in the card's shape", async () => {
    const res = await fetch(`${s.url}/mcp/server-card`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const card = await res.json();
    expect(card.$schema).toBe(SERVER_CARD_SCHEMA);
    expect(card.name).toMatch(REGISTRY_NAME);
    expect(card.name).toBe(`io.crew/${new URL(s.config.baseUrl).host.replace(/:/g, "-")}`);
    expect(card).toMatchObject({ title: "Crew", version: expect.any(String), description: expect.any(String) });
    expect(card.description.length).toBeLessThanOrEqual(100);
    expect(card.remotes).toContainEqual(expect.objectContaining({ type: "streamable-http", url: `${s.config.baseUrl}/mcp` }));
    const alias = await fetch(`${s.url}/.well-known/mcp/server-card.json`);
    expect(await alias.json()).toEqual(card);
  });

  it("is linked from /.well-known/mcp.json, with the read-only and toolset endpoints", async () => {
    const doc = await (await fetch(`${s.url}/.well-known/mcp.json`)).json();
    expect(doc.serverCard).toBe(`${s.config.baseUrl}/mcp/server-card`);
    expect(doc.endpoints).toEqual({ readOnly: `${s.config.baseUrl}/mcp/readonly`, toolset: `${s.config.baseUrl}/mcp/x/{toolset}` });
  });

  it("crew mcp server-json prints the registry's server.json for BASE_URL", async () => {
    const out = await runCliInProcess(["mcp", "server-json"], { BASE_URL: "https://ops.example.com:8443", LOG_LEVEL: "silent" });
    expect(out.code, out.stderr).toBe(0);
    const json = JSON.parse(out.stdout);
    expect(json.$schema).toBe(SERVER_JSON_SCHEMA);
    expect(json.name).toBe("io.crew/ops.example.com-8443");
    expect(json.name).toMatch(REGISTRY_NAME);
    expect(json.remotes).toEqual([
      expect.objectContaining({ type: "streamable-http", url: "https://ops.example.com:8443/mcp" }),
      expect.objectContaining({ type: "streamable-http", url: "https://ops.example.com:8443/mcp/readonly" }),
    ]);
    const help = await runCliInProcess(["mcp", "--help"], {});
    expect(help.stdout).toContain("stdio");
  });
});
