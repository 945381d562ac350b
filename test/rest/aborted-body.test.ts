/**
 * A client that hangs up mid-body (src/docs/notes/running.md logging): the server treats it as the client's doing —
 * a debug line, never an `error` — and keeps answering others. Real server, raw TCP socket.
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../src/lib/log.ts";
import { api, startServer, type TestServer } from "../helpers/server.ts";

const lines: { level: string; msg: string }[] = [];
let s: TestServer;

beforeAll(async () => {
  s = await startServer({ log: createLogger("debug", (line) => lines.push(JSON.parse(line))) });
});
afterAll(async () => {
  await s?.close();
});

function hangUpMidBody(path: string, key: string): Promise<void> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"title": "half`,
      );
      // Let the written bytes leave, then reset the connection with the body incomplete.
      setImmediate(() => socket.resetAndDestroy());
    });
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
}

describe("issue 11 item 10: a client aborting mid-body", () => {
  it("is logged at debug, not error, and the server goes on answering", async () => {
    const { key } = await s.userWithKey("operator", ["admin"]);
    await hangUpMidBody("/api/mcp/actions", key);
    await vi.waitFor(() => expect(lines.filter((l) => l.msg === "client closed the request")).toHaveLength(1), { timeout: 5000 });
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    const reply = await api(s.url, key)("/api/mcp/actions", { body: { title: "Still answering" } });
    expect(reply.status).toBe(200);
  });
});
