/**
 * Feed sources (src/docs/notes/model.md): RSS, Atom and JSON Feed served on loopback reach the agents the feed
 * names (parsed by feedsmith), newest first and bounded; markSeen leaves only new items for the
 * next read; a body that is not a feed, or an address the outbound policy refuses, raises the
 * `feeds` alert, and a later good read clears it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourcesFor, type SourceDeps, SourceError, sourceMissing } from "../../src/integrations/sources.ts";
import { openOrgAlert } from "../../src/store/integrations/alerts.ts";
import { type FeedServer, startFeedServer } from "../helpers/feed-server.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const RSS = (items: { guid: string; title: string; date: string; body: string }[]) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Market news</title><link>https://news.example.com/</link><description>News</description>
${items.map((i) => `<item><guid>${i.guid}</guid><title>${i.title}</title><link>https://news.example.com/${i.guid}</link><pubDate>${i.date}</pubDate><description>${i.body}</description></item>`).join("\n")}
</channel></rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Regulator</title><id>urn:reg</id><updated>2026-11-21T10:00:00Z</updated>
<entry><id>urn:reg:1</id><title>New filing rule</title><link href="https://reg.example.org/1"/><updated>2026-11-21T10:00:00Z</updated>
<summary type="html">&lt;p&gt;Filings are due &lt;b&gt;quarterly&lt;/b&gt; from January.&lt;/p&gt;</summary></entry>
</feed>`;

const JSON_FEED = JSON.stringify({
  version: "https://jsonfeed.org/version/1.1",
  title: "Deals",
  items: [
    {
      id: "deal-7",
      url: "https://deals.example.com/7",
      title: "Acme acquires Widgets",
      content_text: "Acme buys Widgets Inc.",
      date_published: "2026-11-22T08:00:00Z",
    },
  ],
});

let s: TestServer;
let feeds: FeedServer;
let call: ReturnType<typeof api>;
let deps: SourceDeps;
const LIMITS = { maxItems: 10, maxChars: 500 };

beforeAll(async () => {
  feeds = await startFeedServer();
  s = await startServer();
  const { key } = await s.userWithKey("operator", ["admin"]);
  call = api(s.url, key);
  deps = { ...s.deps, policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] } };
  feeds.set(
    "/rss.xml",
    RSS([
      { guid: "a1", title: "Competitor raises prices", date: "Fri, 20 Nov 2026 09:00:00 GMT", body: "Prices up &lt;b&gt;10%&lt;/b&gt;." },
      { guid: "a2", title: "New entrant", date: "Sat, 21 Nov 2026 09:00:00 GMT", body: "A start-up launched." },
    ]),
    "application/rss+xml",
  );
  feeds.set("/atom.xml", ATOM, "application/atom+xml");
  feeds.set("/feed.json", JSON_FEED, "application/feed+json");
  feeds.set("/page.html", "<!doctype html><html><body>Not a feed</body></html>", "text/html");
});

afterAll(async () => {
  await s?.close();
  await feeds?.close();
});

const add = (url: string, agents: string[]) => call("/api/integrations/sources", { body: { kind: "feed", url, agents } });

describe("feed sources (feeds served on loopback)", () => {
  it("an agent without a feed says what is missing", async () => {
    expect(await sourceMissing(deps, s.org.id, "research")).toBe("Needs a feed: add one in Settings → Sources");
    expect((await readSourcesFor(deps, s.org.id, "research", LIMITS)).missing).toBe("Needs a feed: add one in Settings → Sources");
    expect(await sourceMissing(deps, s.org.id, "growth")).toBeNull();
  });

  it("RSS, Atom and JSON Feed reach the research agent's read, newest first, as plain text", async () => {
    for (const path of ["/rss.xml", "/atom.xml", "/feed.json"]) expect((await add(`${feeds.url}${path}`, ["research"])).status).toBe(200);
    expect((await add(`${feeds.url}/atom.xml`, ["compliance"])).status).toBe(400);
    expect(await sourceMissing(deps, s.org.id, "research")).toBeNull();
    const read = await readSourcesFor(deps, s.org.id, "research", LIMITS);
    expect(read.missing).toBeNull();
    expect(read.items.map((i) => i.title)).toEqual(["Acme acquires Widgets", "New filing rule", "New entrant", "Competitor raises prices"]);
    expect(read.items[0]).toEqual({
      kind: "feed",
      id: "deal-7",
      title: "Acme acquires Widgets",
      date: "2026-11-22T08:00:00.000Z",
      text: "Acme buys Widgets Inc.",
      url: "https://deals.example.com/7",
      source: `${feeds.url}/feed.json`,
    });
    expect(read.items.find((i) => i.id === "urn:reg:1")?.text).toBe("Filings are due quarterly from January.");
    expect(read.items.find((i) => i.id === "a1")?.text).toBe("Prices up 10%.");
    // Other agents do not read research's feeds.
    expect((await readSourcesFor(deps, s.org.id, "content", LIMITS)).missing).toMatch(/Needs a feed/);
    await read.markSeen();
  });

  it("after markSeen only new items come, bounded by maxItems and maxChars", async () => {
    expect((await readSourcesFor(deps, s.org.id, "research", LIMITS)).items).toEqual([]);
    feeds.set(
      "/rss.xml",
      RSS([
        { guid: "a1", title: "Competitor raises prices", date: "Fri, 20 Nov 2026 09:00:00 GMT", body: "old" },
        { guid: "a3", title: "Fresh news", date: "Mon, 23 Nov 2026 09:00:00 GMT", body: "z".repeat(1000) },
        { guid: "a4", title: "Older fresh news", date: "Sun, 22 Nov 2026 07:00:00 GMT", body: "short" },
      ]),
      "application/rss+xml",
    );
    const read = await readSourcesFor(deps, s.org.id, "research", { maxItems: 1, maxChars: 50 });
    expect(read.items.map((i) => i.id)).toEqual(["a3"]);
    expect(Array.from(read.items[0]?.text ?? "")).toHaveLength(50);
  });

  it("a feed that is not XML or JSON raises the feeds alert; the other feeds are still read; a later good read clears it", async () => {
    const added = await add(`${feeds.url}/page.html`, ["research", "content"]);
    expect(added.status).toBe(200);
    const read = await readSourcesFor(deps, s.org.id, "research", LIMITS);
    expect(read.items.map((i) => i.id)).toEqual(["a3", "a4"]);
    const alert = await openOrgAlert(s.db, s.org.id, "feeds");
    expect(alert?.message).toBe(
      `Feeds: ${feeds.url}/page.html — The address does not serve an RSS, Atom or JSON feed. Correct it in Settings → Sources.`,
    );
    const listed = await call("/api/integrations/sources");
    expect(listed.json.sources.find((x: { id: string }) => x.id === added.json.id).problem).toBe(
      "The address does not serve an RSS, Atom or JSON feed.",
    );
    // The content agent reads only the broken feed: its read fails as a whole.
    const failed = await readSourcesFor(deps, s.org.id, "content", LIMITS).catch((e) => e);
    expect(failed).toBeInstanceOf(SourceError);
    feeds.set("/page.html", JSON_FEED, "application/feed+json");
    const fixed = await readSourcesFor(deps, s.org.id, "content", LIMITS);
    expect(fixed.items.map((i) => i.id)).toEqual(["deal-7"]);
    // content's feed works again, research's view of it too: no feed has a problem left.
    await readSourcesFor(deps, s.org.id, "research", LIMITS);
    expect(await openOrgAlert(s.db, s.org.id, "feeds")).toBeNull();
  });

  it("a loopback feed is refused without ALLOW_PRIVATE_TARGETS, with the message an unreachable one gets", async () => {
    const strict = { ...deps, policy: { allowPrivate: false, resolve: async () => ["127.0.0.1"] } };
    const failed = await readSourcesFor(strict, s.org.id, "content", LIMITS).catch((e) => e);
    expect(failed).toBeInstanceOf(SourceError);
    expect(failed.message).toBe(`Feeds: ${feeds.url}/page.html: The feed could not be reached.`);
    const hits = feeds.hits("/page.html");
    await readSourcesFor(strict, s.org.id, "content", LIMITS).catch(() => null);
    expect(feeds.hits("/page.html")).toBe(hits);
    await readSourcesFor(deps, s.org.id, "content", LIMITS);
    expect(await openOrgAlert(s.db, s.org.id, "feeds")).toBeNull();
  });

  it("each agent reading a feed gets every item: one agent's markSeen does not hide them from another", async () => {
    feeds.set(
      "/shared.json",
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "Shared",
        items: [{ id: "s-1", title: "Shared item", content_text: "x", date_published: "2026-11-23T10:00:00Z" }],
      }),
      "application/feed+json",
    );
    expect((await add(`${feeds.url}/shared.json`, ["corpdev", "compliance"])).status).toBe(200);
    const corpdev = await readSourcesFor(deps, s.org.id, "corpdev", LIMITS);
    expect(corpdev.items.map((i) => i.id)).toEqual(["s-1"]);
    await corpdev.markSeen();
    expect((await readSourcesFor(deps, s.org.id, "corpdev", LIMITS)).items).toEqual([]);
    const compliance = await readSourcesFor(deps, s.org.id, "compliance", LIMITS);
    expect(compliance.items.map((i) => i.id)).toEqual(["s-1"]);
    await compliance.markSeen();
    expect((await readSourcesFor(deps, s.org.id, "compliance", LIMITS)).items).toEqual([]);
  });

  it("deleting a feed stops its reading and resolves its alert", async () => {
    feeds.set("/page.html", "not a feed at all", "text/plain");
    await readSourcesFor(deps, s.org.id, "content", LIMITS).catch(() => null);
    expect(await openOrgAlert(s.db, s.org.id, "feeds")).not.toBeNull();
    const broken = (await call("/api/integrations/sources")).json.sources.find((x: { url: string }) => x.url.endsWith("/page.html"));
    expect((await call(`/api/integrations/sources/${broken.id}`, { method: "DELETE" })).json).toEqual({ ok: true });
    expect(await openOrgAlert(s.db, s.org.id, "feeds")).toBeNull();
    expect((await call(`/api/integrations/sources/${broken.id}`, { method: "DELETE" })).status).toBe(404);
  });
});
