/**
 * A generated run of bad requests against the REST API (seeded, deterministic, no sleeps): broken
 * JSON, wrong types, unknown fields, 10 KB strings, wrong media types, 1 MB bodies, bad and repeated
 * query values, malformed Authorization headers, odd methods, Unicode and NUL in strings. Every
 * reply must be a well-formed error envelope of the expected status (never a 5xx), and the stored
 * data must be exactly what it was before the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, sha256Hex } from "../../src/lib/random.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { upsertContact } from "../../src/store/contacts/contacts.ts";
import { insertHandoff } from "../../src/store/feed/handoffs.ts";
import { insertInsight } from "../../src/store/feed/insights.ts";
import { briefingInsertStatement } from "../../src/store/reports/reports.ts";
import {
  client,
  envelopeProblems,
  pool,
  type Reply,
  seedActions,
  seededRandom,
  seedProfile,
  seedStandup,
  seedSuggestion,
  snapshot,
} from "../helpers/rest.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

interface BadRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** The exact status this request must get. */
  status: number;
}

let s: TestServer;
let key: string;
let revokedKey: string;
let actionId: string;
beforeAll(async () => {
  s = await startServer({ env: { RATE_LIMIT_PER_HOUR: "100000" } });
  const c = await client(s, "operator", ["admin"]);
  key = c.key;
  const gone = await client(s, "operator", ["admin"]);
  revokedKey = gone.key;
  await revokeApiKey(s.db, gone.user.id, sha256Hex(gone.key), s.clock.now());
  // Something in every table a request could touch.
  const [action] = await seedActions(s, c.user.id, [{ title: "Existing", priority: "high" }, { title: "Other" }]);
  actionId = action!.id;
  await seedStandup(s, "morning", s.clock.now() - 3_600_000, "Morning");
  await seedProfile(s, s.clock.now() - 3_600_000, { archetype: "x", strengths: [], weaknesses: [], patterns: [], pipeline: [] });
  await seedSuggestion(s, "sales", "Call Acme", "high", s.clock.now() - 1000);
  // Written through the store, not the API: no domain events, so nothing regenerates during the run.
  const now = s.clock.now();
  const owner = { createdBy: c.user.id, createdAt: now };
  await upsertContact(s.db, s.org.id, newId("con", now), { name: "Existing Contact", email: "existing@example.com" }, c.user.id, now);
  await insertHandoff(s.db, {
    id: newId("hof", now),
    orgId: s.org.id,
    from: "manual",
    to: "sales",
    title: "Existing handoff",
    context: null,
    priority: "medium",
    type: null,
    ...owner,
  });
  await insertInsight(s.db, {
    id: newId("ins", now),
    orgId: s.org.id,
    agent: "manual",
    title: "Existing insight",
    detail: null,
    type: "insight",
    impact: "low",
    ...owner,
  });
  // A stored briefing, so the run's GET /briefing requests have nothing to compose.
  await s.db.execute(
    briefingInsertStatement({
      id: newId("brf", now),
      orgId: s.org.id,
      userId: c.user.id,
      generatedAt: now,
      body: { briefing: "B", recommendations: [], pendingActions: [] },
    }),
  );
  expect((await c.call("/api/mcp/agents")).status).toBe(200);
});
afterAll(() => s.close());

// ---------------------------------------------------------------------------------------------
// The generator.

const KB10 = "x".repeat(10 * 1024);
const JSON_TYPE = { "Content-Type": "application/json" };

/** Valid bodies of the write endpoints; each field is a string unless noted. */
const WRITES = () => [
  {
    path: "/api/mcp/actions",
    method: "POST",
    body: { title: "T", description: "D", priority: "high", category: "sales", type: "task", lane: "today", dealId: "d1" },
  },
  {
    path: "/api/mcp/contacts",
    method: "POST",
    body: { name: "N", email: "n@example.com", company: "C", role: "R", relationship: "warm", notes: "x" },
  },
  {
    path: "/api/mcp/handoffs",
    method: "POST",
    body: { from: "manual", to: "sales", title: "T", context: "C", priority: "low", type: "review" },
  },
  { path: "/api/mcp/feed", method: "POST", body: { title: "T", detail: "D", agent: "pulse", type: "learning", impact: "high" } },
  { path: `/api/mcp/actions/${actionId}`, method: "PATCH", body: { status: "done", priority: "low", lane: "later" } },
];

const GETS = ["/api/mcp/agents", "/api/mcp/standup", "/api/mcp/briefing", "/api/mcp/suggestions", "/api/mcp/dna", "/api/mcp/actions"];
const QUERY_FIELDS: Record<string, string[]> = {
  "/api/mcp/standup": ["mode"],
  "/api/mcp/suggestions": ["agent"],
  "/api/mcp/actions": ["status", "source", "type", "lane", "limit", "cursor"],
};
const VALID_QUERY: Record<string, string> = {
  mode: "morning",
  agent: "sales",
  status: "pending",
  source: "api",
  type: "task",
  lane: "today",
  limit: "5",
  cursor: "WzEsImFjdF8wMUpEMDAwMDAwMDAwMDAwMDAwMDAwMDAwMCJd",
};

/** encodeURIComponent, with lone surrogates (which it refuses) sent as their invalid UTF-8 bytes. */
const encode = (value: string) =>
  value
    .split(/([\ud800-\udfff])/)
    .map((part) =>
      /^[\ud800-\udfff]$/.test(part)
        ? `%ED%${(0xa0 + ((part.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%80`
        : encodeURIComponent(part),
    )
    .join("");

const WRONG_TYPES: unknown[] = [0, -1, 1.5, 1e308, true, false, null, [], {}, ["x"], { a: 1 }, [null]];
const UNKNOWN_KEYS = [
  "foo",
  "Title",
  "TITLE",
  "id",
  "createdAt",
  "org_id",
  "ok",
  "constructor",
  "prototype",
  "",
  " title",
  "tïtle",
  "ti\u0000tle",
  "🙂",
];
const WEIRD = [
  "\u0000",
  "high\u0000",
  "\u0000high",
  "hi\u0000gh",
  "\ud800",
  "\udfff\ud800",
  "ｈｉｇｈ",
  "HIGH",
  " high",
  "high ",
  "h\u200bigh",
  "\u202ehgih",
  "hi\u0301gh",
  "🔥",
  "日本語",
  "\r\n",
  "\\u0000",
  "%00",
  "null",
  "undefined",
  "NaN",
  "[object Object]",
];
const BAD_QUERY_VALUES = [
  "",
  " ",
  "0",
  "-5",
  "1e2",
  "0x1f",
  "NaN",
  "Infinity",
  "101",
  "2.5",
  "%00",
  "%ZZ",
  "%E0%A4%A",
  "%F0%9F%94%A5",
  "a%2Cb",
  "pending,done",
  "[]",
  "{}",
  "true",
  encodeURIComponent(KB10),
  "%00%ED%A0%80", // NUL and an encoded lone surrogate (not valid UTF-8)
];
const MALFORMED_AUTH = (): string[] => [
  "",
  " ",
  "Bearer",
  "Bearer ",
  "Bearer  ",
  `Bearer ${key} extra`,
  `Bearer\t${key}`,
  `Bearer ${key.toUpperCase()}`,
  `Bearer ${key}=`,
  `Bearer ${key.slice(0, -1)}`,
  `Bearer ${revokedKey}`,
  `Basic ${btoa("user:pass")}`,
  `Digest username="x"`,
  `Token ${key}`,
  `${key}`,
  `Bearer "${key}"`,
  "Bearer crew_",
  "Bearer crew_\u00e9",
  "Bearer \u00ff\u00fe",
  "Bearer a,b",
  "Bearer ====",
  `Bearer ${"A".repeat(4096)}`,
  `Bearer ${key}, Bearer ${key}`,
  "Bearer\u00a0token",
];
const ODD_METHODS = ["PUT", "DELETE", "OPTIONS", "PROPFIND", "PURGE", "LOCK", "UNLOCK", "MKCOL", "COPY", "MOVE", "REPORT", "SEARCH"];

function generate(seed: number): BadRequest[] {
  const rnd = seededRandom(seed);
  const auth = { Authorization: `Bearer ${key}` };
  const out: BadRequest[] = [];
  const add = (r: Omit<BadRequest, "headers"> & { headers?: Record<string, string> }) =>
    out.push({ ...r, headers: { ...auth, ...r.headers } });
  const write = () => rnd.pick(WRITES());
  const field = (body: Record<string, unknown>) => rnd.pick(Object.keys(body));
  const unknownPath = () =>
    rnd.pick(["/api/mcp/nope", "/api/mcp/actions/", "/api/mcp//actions", "/api/mcp/Agents", "/api/mcp/actions/x/y", "/api/mcp/keys/x"]);

  for (let i = 0; i < 60; i++) {
    const w = write();
    const text = JSON.stringify(w.body);
    const mutations = [
      () => text.slice(0, 1 + rnd.int(text.length - 2)),
      () => text.replace(/"/g, "'"),
      () => `${text.slice(0, -1)},}`,
      () => `${text}}`,
      () => `\ufeff\ufeff${text}`, // one leading BOM is allowed (RFC 8259 §8.1), a second is not
      () => text.replace(":", ""),
      () => `${text.slice(0, rnd.int(text.length))}\u0000${text.slice(rnd.int(text.length))}`,
      () => text.replace(/"([a-z]+)":/, "$1:"),
      () => `${text} ${text}`,
      () => rnd.pick(["NaN", "undefined", "{", "}", "[", "tru", "nul", "{'a':1}", '{"title":"x"', "// {}", "/* */{}"]),
    ];
    const broken = rnd.pick(mutations)();
    let parsesToObject = false;
    try {
      const v = JSON.parse(broken);
      parsesToObject = typeof v === "object" && v !== null && !Array.isArray(v);
    } catch {}
    if (parsesToObject) continue; // a mutation that happens to be valid JSON is not a broken-JSON case
    add({ kind: "broken JSON", method: w.method, path: w.path, headers: JSON_TYPE, body: broken, status: 400 });
  }

  for (let i = 0; i < 80; i++) {
    const w = write();
    const body: Record<string, unknown> = { ...w.body, [field(w.body)]: rnd.pick(WRONG_TYPES) };
    add({ kind: "wrong type", method: w.method, path: w.path, headers: JSON_TYPE, body: JSON.stringify(body), status: 400 });
  }
  for (let i = 0; i < 20; i++) {
    const items = Array.from({ length: 1 + rnd.int(6) }, (_, j) => ({ title: `Item ${j}` }));
    const at = rnd.int(items.length);
    const bad = rnd.pick<unknown>([
      rnd.pick(WRONG_TYPES),
      { title: rnd.pick(WRONG_TYPES) },
      { title: "x", priority: rnd.pick(WEIRD) },
      { title: "x", [rnd.pick(UNKNOWN_KEYS.slice(0, 7))]: 1 },
      { title: KB10 },
    ]);
    const actions: unknown[] = items.map((it, j) => (j === at ? bad : it));
    add({
      kind: "bad batch item",
      method: "POST",
      path: "/api/mcp/actions",
      headers: JSON_TYPE,
      body: JSON.stringify({ actions }),
      status: 400,
    });
  }
  for (const actions of [[], Array.from({ length: 101 }, () => ({ title: "x" })), {}, "x", null, [[{ title: "x" }]]]) {
    add({
      kind: "bad batch",
      method: "POST",
      path: "/api/mcp/actions",
      headers: JSON_TYPE,
      body: JSON.stringify({ actions }),
      status: 400,
    });
  }

  for (let i = 0; i < 50; i++) {
    const w = write();
    const k = rnd.pick(UNKNOWN_KEYS);
    const body = JSON.stringify({ ...w.body, [k]: rnd.pick<unknown>(["x", 1, null, {}]) });
    add({ kind: "unknown field", method: w.method, path: w.path, headers: JSON_TYPE, body, status: 400 });
  }
  for (const w of WRITES()) {
    const text = JSON.stringify(w.body);
    add({
      kind: "__proto__ field",
      method: w.method,
      path: w.path,
      headers: JSON_TYPE,
      body: `${text.slice(0, -1)},"__proto__":{"x":1}}`,
      status: 400,
    });
  }

  for (let i = 0; i < 50; i++) {
    const w = write();
    const body = { ...w.body, [field(w.body)]: rnd.pick([KB10, ` ${KB10} `, "é".repeat(5001), `${KB10}@example.com`]) };
    add({ kind: "10 KB string", method: w.method, path: w.path, headers: JSON_TYPE, body: JSON.stringify(body), status: 400 });
  }

  const wrongTypes = [
    "text/plain",
    "text/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=abc",
    "application/xml",
    "application/jsonp",
    "application/json+xml",
    "application",
    "*/*",
    "json",
    ";",
    "application/octet-stream",
  ];
  for (let i = 0; i < 40; i++) {
    const w = write();
    const type = rnd.pick([...wrongTypes, "(none)"]);
    const body = new TextEncoder().encode(JSON.stringify(w.body)); // bytes: fetch adds no Content-Type of its own
    add({
      kind: "wrong content type",
      method: w.method,
      path: w.path,
      headers: type === "(none)" ? {} : { "Content-Type": type },
      body,
      status: 415,
    });
  }

  for (let i = 0; i < 8; i++) {
    const w = write();
    const filler = rnd.pick(["x", " ", "é", "\u0000"]);
    const big = i % 3 === 0 ? `{"title":"${"x".repeat(1 << 20)}"}` : filler.repeat(1 << 20);
    const json = i % 4 !== 3;
    add({
      kind: "1 MB body",
      method: w.method,
      path: w.path,
      headers: json ? JSON_TYPE : { "Content-Type": "text/plain" },
      body: big,
      status: json ? 413 : 415,
    });
  }

  for (let i = 0; i < 60; i++) {
    const path = rnd.pick(GETS);
    const fields = QUERY_FIELDS[path] ?? [];
    const value = rnd.pick([...BAD_QUERY_VALUES, ...WEIRD.map(encode)]);
    const known = fields.length > 0 && rnd.next() < 0.7;
    const name = known ? rnd.pick(fields) : rnd.pick(["q", "page", "offset", "sort", "Mode", "AGENT", "status[]", "limit%00", "%ZZ"]);
    // "101" and "0" etc. are fine for most enums only by accident: none of them is a valid enum or limit value.
    add({ kind: "bad query value", method: "GET", path: `${path}?${name}=${value}`, status: 400 });
  }
  for (let i = 0; i < 30; i++) {
    const path = rnd.pick(Object.keys(QUERY_FIELDS));
    const name = rnd.pick(QUERY_FIELDS[path]!);
    const valid = VALID_QUERY[name]!;
    const second = rnd.pick([valid, "", "x"]);
    add({ kind: "repeated query parameter", method: "GET", path: `${path}?${name}=${valid}&${name}=${second}`, status: 400 });
  }

  for (let i = 0; i < 60; i++) {
    const header = rnd.pick(MALFORMED_AUTH());
    const asWrite = rnd.next() < 0.5;
    const w = write();
    const method = asWrite ? w.method : "GET";
    const path = asWrite ? w.path : rnd.pick([...GETS, unknownPath()]);
    const headers: Record<string, string> = { Authorization: header, ...(asWrite ? JSON_TYPE : {}) };
    const r = { kind: "malformed Authorization", method, path, headers, status: 401, ...(asWrite ? { body: JSON.stringify(w.body) } : {}) };
    out.push(r);
  }
  for (let i = 0; i < 10; i++) {
    const w = write();
    out.push({ kind: "no Authorization", method: w.method, path: w.path, headers: JSON_TYPE, body: JSON.stringify(w.body), status: 401 });
  }

  for (let i = 0; i < 50; i++) {
    const method = rnd.pick(ODD_METHODS);
    const known = rnd.next() < 0.8;
    const w = write();
    const path = known ? rnd.pick([...GETS, ...WRITES().map((x) => x.path)]) : unknownPath();
    const withBody = rnd.next() < 0.5;
    add({
      kind: "odd method",
      method,
      path,
      headers: withBody ? JSON_TYPE : {},
      ...(withBody ? { body: JSON.stringify(w.body) } : {}),
      status: known ? 405 : 404,
    });
  }
  // The queue, one action (src/docs/notes/mcp-resources-and-prompts.md's crew://actions/{id}) and contacts answer GET too.
  for (const w of WRITES().filter(
    (x) => x.path !== "/api/mcp/actions" && !x.path.startsWith("/api/mcp/actions/") && x.path !== "/api/mcp/contacts",
  )) {
    add({ kind: "GET on a write", method: "GET", path: w.path, status: 405 });
  }
  for (const path of ["/api/mcp/agents", "/api/mcp/dna", "/api/mcp/briefing", "/api/mcp/standup", "/api/mcp/suggestions"]) {
    add({ kind: "POST on a read", method: "POST", path, headers: JSON_TYPE, body: JSON.stringify({ title: "x" }), status: 405 });
  }

  const enumFields: [string, string, Record<string, unknown>][] = [
    ["/api/mcp/actions", "priority", { title: "T" }],
    ["/api/mcp/actions", "lane", { title: "T" }],
    ["/api/mcp/actions", "type", { title: "T" }],
    ["/api/mcp/contacts", "relationship", { name: "N" }],
    ["/api/mcp/contacts", "email", { name: "N" }],
    ["/api/mcp/handoffs", "from", { to: "sales", title: "T" }],
    ["/api/mcp/handoffs", "to", { from: "manual", title: "T" }],
    ["/api/mcp/handoffs", "priority", { from: "manual", to: "sales", title: "T" }],
    ["/api/mcp/feed", "agent", { title: "T" }],
    ["/api/mcp/feed", "type", { title: "T" }],
    ["/api/mcp/feed", "impact", { title: "T" }],
  ];
  for (let i = 0; i < 50; i++) {
    const [path, name, base] = rnd.pick(enumFields);
    const body = JSON.stringify({ ...base, [name]: rnd.pick(WEIRD) });
    add({ kind: "Unicode/NUL in an enum", method: "POST", path, headers: JSON_TYPE, body, status: 400 });
  }
  for (let i = 0; i < 20; i++) {
    // Free text may hold any Unicode: such a body is refused only for its other (unknown) field.
    const w = write();
    const textField = w.method === "PATCH" ? "status" : field(w.body);
    const body = JSON.stringify({ ...w.body, [textField]: `a${rnd.pick(WEIRD)}b`, extra: rnd.pick(WEIRD) });
    add({ kind: "Unicode/NUL in text", method: w.method, path: w.path, headers: JSON_TYPE, body, status: 400 });
  }
  for (let i = 0; i < 15; i++) {
    const id = rnd.pick([
      "act_%00",
      "%00",
      "act_%F0%9F%94%A5",
      "%E0%A4%A",
      `${actionId}%00`,
      `${actionId.toLowerCase()}`,
      "act_",
      "%20",
      encodeURIComponent(KB10),
    ]);
    add({
      kind: "odd action id",
      method: "PATCH",
      path: `/api/mcp/actions/${id}`,
      headers: JSON_TYPE,
      body: '{"status":"done"}',
      status: 404,
    });
  }

  const badUtf8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]];
  for (const bytes of badUtf8) {
    const w = write();
    const head = new TextEncoder().encode('{"title":"');
    const tail = new TextEncoder().encode('"}');
    const body = new Uint8Array([...head, ...bytes, ...tail]);
    add({ kind: "invalid UTF-8", method: w.method, path: w.path, headers: JSON_TYPE, body, status: 400 });
  }
  for (const depth of [1000, 50_000]) {
    add({
      kind: "deep nesting",
      method: "POST",
      path: "/api/mcp/feed",
      headers: JSON_TYPE,
      body: `{"title":${"[".repeat(depth)}${"]".repeat(depth)}}`,
      status: 400,
    });
    add({
      kind: "deep nesting",
      method: "POST",
      path: "/api/mcp/contacts",
      headers: JSON_TYPE,
      body: "[".repeat(depth) + "]".repeat(depth),
      status: 400,
    });
  }
  return out;
}

async function send(r: BadRequest): Promise<Reply> {
  const res = await fetch(s.url + r.path, { method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, json, text };
}

describe("bad input", () => {
  it("generates the same run for the same seed, over 500 requests of every kind", () => {
    const a = generate(7);
    expect(a.length).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(generate(7).map((r) => [r.method, r.path, r.status]))).toBe(
      JSON.stringify(a.map((r) => [r.method, r.path, r.status])),
    );
    const kinds = new Set(a.map((r) => r.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(20);
  });

  it("answers every bad request with a well-formed error envelope of the expected status, and changes no stored data", async () => {
    const run = generate(20261122);
    const before = await snapshot(s.db);
    const replies = await pool(run, 8, send);
    const failures: string[] = [];
    replies.forEach((res, i) => {
      const r = run[i]!;
      const problems = envelopeProblems(res, s.url);
      if (res.status !== r.status) problems.unshift(`status ${res.status}, expected ${r.status}`);
      if (problems.length > 0)
        failures.push(`#${i} ${r.kind}: ${r.method} ${r.path.slice(0, 80)} → ${problems.join("; ")} ${res.text.slice(0, 160)}`);
    });
    expect(failures).toEqual([]);
    expect(replies.filter((r) => r.status >= 500)).toHaveLength(0);
    const after = await snapshot(s.db);
    expect(after).toEqual(before);
    // The stored data is still there and unchanged to the API as well.
    const actions = await fetch(`${s.url}/api/mcp/actions`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await actions.json()).actions.map((a: any) => [a.id === actionId ? "existing" : a.title, a.status])).toEqual([
      ["existing", "pending"],
      ["Other", "pending"],
    ]);
  });
});
