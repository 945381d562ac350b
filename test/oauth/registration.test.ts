/** The registration limit and the purge of unused registrations (src/docs/notes/oauth.md). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, HOUR } from "../../src/lib/clock.ts";
import { REGISTRATIONS_PER_HOUR } from "../../src/oauth/register.ts";
import { findClient } from "../../src/store/oauth/clients.ts";
import { connect, exchangeCode, registerClient } from "../helpers/oauth.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("registration limits", () => {
  it("allows a generous number per address per hour, then 429 until the hour passes", async () => {
    expect(REGISTRATIONS_PER_HOUR).toBeGreaterThanOrEqual(300);
    const first = await registerClient(s.url);
    const address = (await s.db.execute({ sql: "SELECT registered_from FROM oauth_clients WHERE id = ?", args: [first.client_id] }))
      .rows[0]!.registered_from as string;
    // The peer address when the server passes its connection info, else "unknown": one bucket either way.
    expect(address).toMatch(/127\.0\.0\.1|unknown/);
    // Fill the rest of the hour's allowance directly: the limit counts rows, however they came.
    const metadata = {
      redirect_uris: ["http://127.0.0.1/cb"],
      token_endpoint_auth_method: "none" as const,
      grant_types: [],
      response_types: [],
    };
    await s.db.batch(
      Array.from({ length: REGISTRATIONS_PER_HOUR - 1 }, (_, i) => ({
        sql: "INSERT INTO oauth_clients (id, metadata, registered_from, created_at) VALUES (?, ?, ?, ?)",
        args: [`crewcl_fill${i}`, JSON.stringify(metadata), address, s.clock.now()],
      })),
      "write",
    );
    const refused = await fetch(`${s.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["http://127.0.0.1/cb"] }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("600");
    expect((await refused.json()).error).toBe("rate_limited");
    s.clock.advance(HOUR);
    expect((await registerClient(s.url)).client_id).toMatch(/^crewcl_/);
  });

  it("purges registrations never used for a grant after 24 hours, and keeps used ones", async () => {
    const user = await s.createUser("pro");
    const unused = await registerClient(s.url);
    const used = await connect(s.url, user.email);
    expect((await exchangeCode(s.url, used)).status).toBe(200);
    s.clock.advance(DAY + 1000);
    await registerClient(s.url); // purging happens as registrations arrive
    expect(await findClient(s.db, unused.client_id)).toBeNull();
    expect(await findClient(s.db, used.clientId)).not.toBeNull();
  });
});
