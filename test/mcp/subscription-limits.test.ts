/**
 * Issue 33 item 5 (and issue 35 item 5, "the stream cap atomic"): 15 parallel
 * `subscriptions/listen` opens of one user leave exactly 5 streams open (the cap is taken in the
 * database, so it holds under parallel requests and across processes); a closed stream frees its
 * slot; a stream ends within a few seconds once its API key is revoked, or its OAuth access token
 * expires, while the user's other streams stay open.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR } from "../../src/lib/clock.ts";
import { sha256Hex } from "../../src/lib/random.ts";
import { MAX_STREAMS_PER_USER } from "../../src/mcp/subscriptions.ts";
import { revokeApiKey } from "../../src/store/auth/api-keys.ts";
import { type ListenStream, listen, waitFor } from "../helpers/listen.ts";
import { oauthAccessToken } from "../helpers/mcp.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

const acknowledged = (stream: ListenStream) => stream.messages.some((m) => m.method === "notifications/subscriptions/acknowledged");
/** Ended by the server: the stream's last message is the listen request's own result. */
const endedBy = (stream: ListenStream, id: number) => stream.messages.some((m) => m.id === id && m.result?.resultType === "complete");

describe("the per-user stream cap under parallel opens", () => {
  it(`leaves exactly ${MAX_STREAMS_PER_USER} of 15 parallel opens open, and frees a slot on close`, async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    const opened = await Promise.all(Array.from({ length: 15 }, (_, i) => listen(s.url, key, i + 1)));
    try {
      const open = opened.filter((o) => o.res.status === 200);
      const refused = opened.filter((o) => o.res.status === 429);
      expect(open).toHaveLength(MAX_STREAMS_PER_USER);
      expect(refused).toHaveLength(15 - MAX_STREAMS_PER_USER);
      for (const o of open) expect(await waitFor(() => acknowledged(o), 5000)).toBe(true);
      expect(JSON.stringify(refused[0]?.messages)).toContain(`At most ${MAX_STREAMS_PER_USER}`);

      open[0]?.close();
      // The server notices the client going away and hands the slot back.
      let again: ListenStream | undefined;
      for (const until = Date.now() + 5000; Date.now() < until && again?.res.status !== 200; ) {
        again = await listen(s.url, key, 100);
        if (again.res.status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(again?.res.status).toBe(200);
      again?.close();
    } finally {
      for (const o of opened) o.close();
    }
  });
});

describe("streams end with their credential", () => {
  it("ends a stream within a few seconds of its API key being revoked; another key's stream stays", async () => {
    const { user, key } = await s.userWithKey("operator", ["admin"]);
    const other = await s.createKey(user, ["admin"]);
    const doomed = await listen(s.url, key, 1);
    const kept = await listen(s.url, other, 2);
    try {
      expect(await waitFor(() => acknowledged(doomed) && acknowledged(kept), 5000)).toBe(true);
      expect(await revokeApiKey(s.db, user.id, sha256Hex(key), s.clock.now())).toBe(true);
      const winner = await Promise.race([doomed.ended.then(() => "ended"), new Promise((r) => setTimeout(() => r("open"), 5000))]);
      expect(winner).toBe("ended");
      expect(endedBy(doomed, 1)).toBe(true);
      expect(endedBy(kept, 2)).toBe(false);
      // The revoked key opens nothing new.
      expect((await listen(s.url, key, 3)).res.status).toBe(401);
    } finally {
      doomed.close();
      kept.close();
    }
  });

  it("ends a stream whose OAuth access token expires", async () => {
    const user = await s.createUser("operator");
    const { token } = await oauthAccessToken(s.db, s.config.baseUrl, user.id, ["crew:read"], s.clock.now());
    const stream = await listen(s.url, token, 1);
    try {
      expect(stream.res.status).toBe(200);
      expect(await waitFor(() => acknowledged(stream), 5000)).toBe(true);
      s.clock.advance(HOUR + 1);
      const winner = await Promise.race([stream.ended.then(() => "ended"), new Promise((r) => setTimeout(() => r("open"), 5000))]);
      expect(winner).toBe("ended");
      expect(endedBy(stream, 1)).toBe(true);
    } finally {
      stream.close();
    }
  });
});
