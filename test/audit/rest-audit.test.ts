/**
 * Findings of the REST audit against src/docs/notes/access.md and rest-api.md, each pinned over real HTTP: every unknown field
 * named, repeated JSON names refused, null explained, stray query parameters refused, trailing
 * slashes answered with the right path, lengths counted in characters, HEAD, header spelling,
 * and /readyz when the database is gone.
 */
import { describe, expect, it } from "vitest";
import { duplicateKeys } from "../../src/http/body.ts";
import { type Call, expectError, serverWithClient } from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let call: Call;
let key: string;
serverWithClient("operator", ["admin"], (f) => ({ s, call, key } = f));

const paths = (body: any) => body.issues.map((i: { path: string }) => i.path);
const countActions = async () => Number((await s.db.execute("SELECT count(*) AS n FROM actions")).rows[0]?.n);

describe("400 names every offending field (src/docs/notes/rest-api.md)", () => {
  it("lists every unknown field of an object, not just the first, beside the other issues", async () => {
    const one = expectError(
      await call("/api/mcp/actions", { body: { title: "x", colour: "red", status: "done", owner: { id: 1 } } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(paths(one)).toEqual(["colour", "owner", "status"]);
    expect(one.issues.every((i: { message: string }) => i.message === "Unknown field.")).toBe(true);

    const batch = expectError(
      await call("/api/mcp/actions", {
        body: { actions: [{ title: "a", x: 1, y: 2 }, { title: "b" }, { title: "c", priority: "urgent", z: 3 }] },
      }),
      s.url,
      400,
      "invalid_request",
    );
    expect(paths(batch)).toEqual(["actions[2].priority", "actions[0].x", "actions[0].y", "actions[2].z"]);
    expect(batch.message).toBe("The request body is invalid: actions[2].priority, actions[0].x, actions[0].y, actions[2].z.");

    const contact = expectError(
      await call("/api/mcp/contacts", { body: { name: "", phone: "1", city: "Paris" } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(paths(contact)).toEqual(["name", "city", "phone"]);
  });

  it("still answers 400 for unknown fields nested too deeply to copy", async () => {
    const deep = `{"title":"x","extra":${"[".repeat(50_000)}${"]".repeat(50_000)},"more":1}`;
    const res = await call("/api/mcp/actions", { body: deep });
    expect(paths(expectError(res, s.url, 400, "invalid_request"))).toContain("extra");
  });

  it("refuses a name given twice in one object, naming it, and stores nothing", async () => {
    const before = await countActions();
    const top = expectError(
      await call("/api/mcp/actions", { body: '{"title":"first","priority":"low","title":"second"}' }),
      s.url,
      400,
      "invalid_request",
    );
    expect(top.issues).toEqual([{ path: "title", message: "Given more than once." }]);
    expect(top.message).toBe("The request body gives a field more than once: title.");
    const nested = expectError(
      await call("/api/mcp/actions", { body: '{"actions":[{"title":"a"},{"title":"b","lane":"later","lane":"today"}]}' }),
      s.url,
      400,
      "invalid_request",
    );
    expect(paths(nested)).toEqual(["actions[1].lane"]);
    expect(await countActions()).toBe(before);
    // The same name in different objects, or as a string value, is fine.
    const fine = await call("/api/mcp/actions", { body: '{"actions":[{"title":"title"},{"title":"b"}]}' });
    expect(fine.status).toBe(200);
  });

  it("explains a null: optional fields are left out, never null", async () => {
    const res = expectError(
      await call("/api/mcp/feed", { body: { title: "x", agent: null, detail: null } }),
      s.url,
      400,
      "invalid_request",
    );
    expect(res.issues).toEqual([
      { path: "detail", message: "Must be a string. Got null: leave an optional field out instead." },
      { path: "agent", message: "Must be an agent id or manual. Got null: leave an optional field out instead." },
    ]);
    expect((await call("/api/mcp/feed", { body: { title: "x" } })).status).toBe(200);
  });

  it("refuses query parameters on an endpoint that takes none, like unknown body fields", async () => {
    const before = await countActions();
    const res = expectError(await call("/api/mcp/actions?dryRun=1", { body: { title: "x" } }), s.url, 400, "invalid_request");
    expect(res.issues).toEqual([{ path: "dryRun", message: "Unknown query parameter." }]);
    expect(await countActions()).toBe(before);
    expectError(await call("/api/mcp/agents?verbose=true"), s.url, 400, "invalid_request");
  });
});

describe("limits count characters (src/docs/notes/rest-api.md)", () => {
  it("counts a title in characters after trimming, so 200 emoji pass and 201 do not", async () => {
    expect((await call("/api/mcp/actions", { body: { title: `  ${"🚀".repeat(200)}  ` } })).status).toBe(200);
    const over = expectError(await call("/api/mcp/actions", { body: { title: "🚀".repeat(201) } }), s.url, 400, "invalid_request");
    expect(over.issues).toEqual([{ path: "title", message: "Must be at most 200 characters." }]);
    expect((await call("/api/mcp/feed", { body: { title: "t", detail: "é".repeat(5000) } })).status).toBe(200);
    expect((await call("/api/mcp/feed", { body: { title: "t", detail: "𝄞".repeat(5000) } })).status).toBe(200);
    expectError(await call("/api/mcp/feed", { body: { title: "t", detail: "𝄞".repeat(5001) } }), s.url, 400, "invalid_request");
  });
});

describe("paths, methods and headers", () => {
  it("answers a trailing slash with a 404 that names the path without it", async () => {
    const slash = expectError(await call("/api/mcp/agents/"), s.url, 404, "not_found");
    expect(slash.message).toBe("No such endpoint; did you mean /api/mcp/agents (no trailing slash)?");
    const patch = expectError(
      await call("/api/mcp/actions/act_x/", { method: "PATCH", body: { status: "done" } }),
      s.url,
      404,
      "not_found",
    );
    expect(patch.message).toContain("/api/mcp/actions/act_x (no trailing slash)");
    // Still protected like every /api/mcp path; the session-only keys path needs no Bearer to be told.
    expect((await fetch(`${s.url}/api/mcp/agents/`)).status).toBe(401);
    const keys = await fetch(`${s.url}/api/mcp/keys/`);
    expect(keys.status).toBe(404);
    expect((await keys.json()).message).toContain("/api/mcp/keys (no trailing slash)");
  });

  it("answers HEAD like GET without a body, and 405 with Allow on a POST-only path", async () => {
    const head = await fetch(`${s.url}/api/mcp/agents`, { method: "HEAD", headers: { Authorization: `Bearer ${key}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("api-version")).toBe("1.0.0");
    expect(head.headers.get("x-ratelimit-limit")).toBe("600");
    const post = await fetch(`${s.url}/api/mcp/feed`, { method: "HEAD", headers: { Authorization: `Bearer ${key}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("POST");
  });

  it("reads header names and the Bearer scheme in any case, and JSON media types with parameters", async () => {
    const res = await fetch(`${s.url}/api/mcp/feed`, {
      method: "POST",
      headers: { authorization: `bearer ${key}`, "CONTENT-TYPE": "Application/JSON; Charset=UTF-8" },
      body: JSON.stringify({ title: "Ünïcödé ✓ 日本" }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).insightId).toMatch(/^ins_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});

describe("duplicateKeys", () => {
  it("finds repeated names per object, through arrays and escapes, and nothing else", () => {
    expect(duplicateKeys('{"a":1,"b":{"a":2,"c":[{"a":1,"a":2}]},"a":3}')).toEqual(["b.c[0].a", "a"]);
    expect(duplicateKeys('{"a":"\\"a\\"","b":"a","c":["a","a"],"\\u0061":1}')).toEqual(["a"]);
    expect(duplicateKeys('{"x":{},"y":[],"z":[[],{}]}')).toEqual([]);
  });
});

describe("/readyz", () => {
  it("is 503 once the database stops answering, while /healthz stays 200", async () => {
    const own = await startServer();
    try {
      expect((await fetch(`${own.url}/readyz`)).status).toBe(200);
      own.db.close();
      const res = await fetch(`${own.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ok: false });
      expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
    } finally {
      await own.close().catch(() => {});
    }
  });
});
