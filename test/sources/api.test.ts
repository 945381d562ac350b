/**
 * POST/GET/DELETE /api/integrations/sources (src/docs/notes/model.md): admin tier (admin key, crew:write), bad
 * input → 400 naming the field with nothing stored, another organization's source is not found,
 * and no password in any answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envelopeProblems, otherOrg, type Reply, snapshot } from "../helpers/rest.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

/** The error envelope of src/docs/notes/rest-api.md (API-Version is an /api/mcp/* header: not expected here). */
function expectError(res: Reply, base: string, status: number, code: string): any {
  expect({ status: res.status, error: res.json?.error }).toEqual({ status, error: code });
  expect(envelopeProblems(res, base).filter((p) => p !== "no API-Version")).toEqual([]);
  return res.json;
}

let s: TestServer;
let admin: ReturnType<typeof api>;

const MAILBOX = { kind: "imap", host: "imap.example.com", username: "owner@example.com", password: "s3cret-Mailbox-pw" };

beforeAll(async () => {
  s = await startServer();
  const { key } = await s.userWithKey("operator", ["admin"]);
  admin = api(s.url, key);
});

afterAll(async () => {
  await s?.close();
});

describe("/api/integrations/sources", () => {
  it("admin keys add, list and delete; defaults filled in; the password never comes back", async () => {
    const added = await admin("/api/integrations/sources", { body: MAILBOX });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({
      kind: "imap",
      host: "imap.example.com",
      port: 993,
      tls: true,
      folder: "INBOX",
      agents: ["inbox"],
      problem: null,
    });
    expect(added.json.id).toMatch(/^src_/);
    const replaced = await admin("/api/integrations/sources", { body: { ...MAILBOX, tls: false, folder: "Sales" } });
    expect(replaced.json).toMatchObject({ port: 143, tls: false, folder: "Sales" });
    const feed = await admin("/api/integrations/sources", {
      body: { kind: "feed", url: "https://news.example.com/feed.xml", agents: ["research", "corpdev"] },
    });
    expect(feed.json).toMatchObject({
      kind: "feed",
      url: "https://news.example.com/feed.xml",
      agents: ["research", "corpdev"],
      host: null,
    });
    const listed = await admin("/api/integrations/sources");
    // One mailbox per organization: the second replaced the first.
    expect(listed.json.sources.map((x: { kind: string }) => x.kind)).toEqual(["imap", "feed"]);
    for (const text of [added.text, replaced.text, feed.text, listed.text]) expect(text).not.toContain(MAILBOX.password);
    expect((await admin(`/api/integrations/sources/${feed.json.id}`, { method: "DELETE" })).json).toEqual({ ok: true });
    expect((await admin("/api/integrations/sources")).json.sources).toHaveLength(1);
  });

  it("read keys are refused with the scope they lack", async () => {
    const { key } = await s.userWithKey("operator", ["read"]);
    const res = await api(s.url, key)("/api/integrations/sources");
    expect(expectError(res, s.url, 403, "insufficient_scope").required_scope).toBe("admin");
  });

  it("bad input is a 400 naming the field, and nothing is stored", async () => {
    const before = await snapshot(s.db);
    const cases: [unknown, string][] = [
      [{ kind: "pop3", host: "x" }, "kind"],
      [{ ...MAILBOX, password: "" }, "password"],
      [{ ...MAILBOX, host: "imaps://imap.example.com:993" }, "host"],
      [{ ...MAILBOX, port: 70000 }, "port"],
      [{ ...MAILBOX, extra: 1 }, "extra"],
      [{ kind: "feed", url: "ftp://example.com/feed", agents: ["research"] }, "url"],
      [{ kind: "feed", url: "https://user:pw@example.com/feed", agents: ["research"] }, "url"],
      [{ kind: "feed", url: "https://example.com/feed", agents: ["growth"] }, "agents[0]"],
      [{ kind: "feed", url: "https://example.com/feed", agents: [] }, "agents"],
    ];
    for (const [body, path] of cases) {
      const res = await admin("/api/integrations/sources", { body });
      const error = expectError(res, s.url, 400, "invalid_request");
      expect(
        error.issues.map((i: { path: string }) => i.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect(await snapshot(s.db)).toEqual(before);
  });

  it("another organization's source is not found and stays", async () => {
    const orgId = await otherOrg(s);
    await s.db.execute({
      sql: "INSERT INTO sources (id, org_id, kind, config, agents, state, created_at, updated_at) VALUES ('src_other', ?, 'feed', '{\"url\":\"https://x.example/\"}', '[\"research\"]', '{}', 0, 0)",
      args: [orgId],
    });
    expectError(await admin("/api/integrations/sources/src_other", { method: "DELETE" }), s.url, 404, "not_found");
    expect((await admin("/api/integrations/sources")).json.sources.map((x: { id: string }) => x.id)).not.toContain("src_other");
    expect((await s.db.execute("SELECT COUNT(*) AS n FROM sources WHERE id = 'src_other'")).rows[0]?.n).toBe(1);
  });
});
