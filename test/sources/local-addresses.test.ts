/**
 * Issue 18 item 24: a feed or mailbox on a loopback or private address is refused when it is saved
 * (like a webhook), with a message that says why and what to do (ALLOW_PRIVATE_TARGETS), instead
 * of being accepted and failing at every read. Nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, startServer, type TestServer } from "../helpers/server.ts";
import { Browserish } from "../web/client.ts";

let s: TestServer;
let call: ReturnType<typeof api>;
let ownerEmail: string;
beforeAll(async () => {
  s = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
  const owner = await s.createUser("operator", undefined, "owner");
  ownerEmail = owner.email;
  call = api(s.url, await s.createKey(owner, ["admin"]));
});
afterAll(() => s.close());

describe("local addresses at save", () => {
  it.each([
    ["a loopback feed", { kind: "feed", url: "http://127.0.0.1:8080/feed.xml", agents: ["research"] }, "url"],
    ["a localhost feed", { kind: "feed", url: "http://localhost/feed.xml", agents: ["research"] }, "url"],
    ["an IPv6 loopback feed", { kind: "feed", url: "http://[::1]/feed.xml", agents: ["research"] }, "url"],
    ["a private-network feed", { kind: "feed", url: "https://192.168.1.20/feed.xml", agents: ["research"] }, "url"],
    [
      "a loopback mailbox",
      { kind: "imap", host: "127.0.0.1", port: 143, tls: false, username: "me", password: "secret", folder: "INBOX" },
      "host",
    ],
  ])("refuses %s, saying ALLOW_PRIVATE_TARGETS lifts it, and stores nothing", async (_, body, path) => {
    const res = await call("/api/integrations/sources", { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_request");
    expect(res.json.message).toContain("ALLOW_PRIVATE_TARGETS");
    expect(res.json.issues).toEqual([{ path, message: expect.stringContaining("loopback, private or link-local") }]);
    expect((await call("/api/integrations/sources")).json.sources).toEqual([]);
  });
});

describe("local addresses explained where they are suggested", () => {
  it("Settings → Model says a localhost model needs ALLOW_PRIVATE_TARGETS or the model's environment variables", async () => {
    const tab = new Browserish(s.url);
    await tab.signIn(ownerEmail);
    const page = (await tab.request("/settings/model")).text;
    expect(page).toContain("http://localhost:11434/v1");
    expect(page).toContain("<code>ALLOW_PRIVATE_TARGETS=true</code>");
    expect(page).toContain("<code>CREW_MODEL_BASE_URL</code>");
  });

  it("a calendar on localhost (the Radicale example) is refused with the same words as an unreachable one, naming the setting", async () => {
    const res = await call("/api/integrations/calendar", { body: { url: "http://localhost:5232/", username: "me", password: "pw" } });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("no answer, or not a public address");
    expect(res.json.message).toContain("ALLOW_PRIVATE_TARGETS=true");
  });
});
