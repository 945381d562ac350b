/**
 * Issue 18 item 25: a feed read twice must not show "never". Each source keeps its last successful
 * read and its last failed one with the reason, listed by the API and shown in Settings → Sources.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourcesFor, type SourceDeps } from "../../src/integrations/sources.ts";
import { type FeedServer, startFeedServer } from "../helpers/feed-server.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>News</title><link>https://news.example.com/</link><description>News</description>
<item><guid>n1</guid><title>One</title><link>https://news.example.com/n1</link><pubDate>Fri, 20 Nov 2026 09:00:00 GMT</pubDate><description>Text</description></item>
</channel></rss>`;

let s: TestServer;
let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
  await feeds?.close();
});

describe("a source's last success and last failure", () => {
  it("are recorded at every read, listed by the API and shown with the reason in Settings → Sources", async () => {
    const owner = await s.createUser("operator", undefined, "owner");
    const call = api(s.url, await s.createKey(owner, ["admin"]));
    const deps: SourceDeps = { ...s.deps, policy: { allowPrivate: true, resolve: async () => ["127.0.0.1"] } };
    feeds.set("/news.xml", RSS, "application/rss+xml");
    const added = await call("/api/integrations/sources", { body: { kind: "feed", url: `${feeds.url}/news.xml`, agents: ["research"] } });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null });
    const listed = async () => (await call("/api/integrations/sources")).json.sources.find((x: { id: string }) => x.id === added.json.id);

    await readSourcesFor(deps, s.org.id, "research", { maxItems: 5, maxChars: 200 });
    const readAt = s.clock.now();
    s.clock.advance(60_000);
    await readSourcesFor(deps, s.org.id, "research", { maxItems: 5, maxChars: 200 });
    expect((await listed()).lastSuccessAt).toBe(new Date(readAt + 60_000).toISOString());

    s.clock.advance(10 * 60_000);
    feeds.set("/news.xml", "<!doctype html><p>moved</p>", "text/html");
    await readSourcesFor(deps, s.org.id, "research", { maxItems: 5, maxChars: 200 }).catch(() => null);
    const failed = await listed();
    expect(failed.lastFailureAt).toBe(new Date(s.clock.now()).toISOString());
    expect(failed.lastFailureReason).toBeTruthy();
    expect(failed.lastSuccessAt).toBe(new Date(readAt + 60_000).toISOString());

    const tab = new Browserish(s.url);
    await tab.signIn(owner.email);
    const page = (await tab.request("/settings/sources")).text;
    expect(page).toContain("Last success");
    expect(page).toContain("Last failure");
    expect(page).toContain("10 min ago");
    expect(page).toContain(failed.lastFailureReason.replace(/&/g, "&amp;").slice(0, 20));
  });
});
