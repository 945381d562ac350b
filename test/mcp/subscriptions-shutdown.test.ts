/**
 * Issue 23 item 4, "closed at shutdown": an open `subscriptions/listen` stream does not hold a
 * stopping server. On SIGTERM a real server process ends every stream at once with the empty
 * listen result (the specification's graceful end, which the SDK v2 client reports as
 * `graceful`) and exits well before its 10 s grace period; the test helper server's close() does
 * the same.
 */
import { afterAll, describe, expect, it } from "vitest";
import { databaseFileWithKey } from "../helpers/cli.ts";
import { listen, waitFor } from "../helpers/listen.ts";
import { startServer } from "../helpers/server.ts";
import { spawnServer } from "../helpers/spawn.ts";

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

/** The stream's last message: the JSON-RPC result for the listen request itself. */
const endedGracefully = (messages: any[], id: number) => messages.some((m) => m.id === id && m.result?.resultType === "complete");

describe("issue 23 item 4: subscription streams at shutdown", () => {
  it("a server process on SIGTERM ends its open streams with the listen result and exits promptly", async () => {
    const { dbUrl, key, cleanup } = await databaseFileWithKey("listen-shutdown");
    cleanups.push(cleanup);
    const server = await spawnServer({ DATABASE_URL: dbUrl, CREW_SECRET: "test-secret-test-secret-test-secret-00" });
    const streams = [await listen(server.url, key, 1), await listen(server.url, key, 2)];
    for (const s of streams) {
      expect(s.res.status).toBe(200);
      expect(await waitFor(() => s.messages.some((m) => m.method === "notifications/subscriptions/acknowledged"), 5000)).toBe(true);
    }
    // stop() sends SIGTERM and waits for the exit, killing the process after 5 s: without the
    // streams ending, the server would wait for them until its 10 s deadline, and be killed first.
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    await Promise.all(streams.map((s) => s.ended));
    expect(endedGracefully(streams[0]?.messages ?? [], 1)).toBe(true);
    expect(endedGracefully(streams[1]?.messages ?? [], 2)).toBe(true);
  }, 30_000);

  it("the test helper server's close() ends an open stream at once", async () => {
    const s = await startServer();
    const { key } = await s.userWithKey("operator", ["admin"]);
    const stream = await listen(s.url, key, 5);
    expect(await waitFor(() => stream.messages.length > 0, 5000)).toBe(true);
    const closed = s.close();
    const winner = await Promise.race([stream.ended.then(() => "ended"), new Promise((r) => setTimeout(() => r("still open"), 3000))]);
    expect(winner).toBe("ended");
    expect(endedGracefully(stream.messages, 5)).toBe(true);
    await closed;
  }, 20_000);
});
