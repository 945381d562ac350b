/**
 * Feeds served on loopback for the source tests: a plain node:http server on an ephemeral port
 * answering each path with the body and content type set for it (changeable between requests),
 * 404 otherwise. Counts requests per path, so a test can tell a feed was really fetched.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FeedServer {
  url: string;
  /** Serves `body` at `path` from now on. */
  set(path: string, body: string, contentType: string, status?: number): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, { body: string; contentType: string; status: number }>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(route.status, { "content-type": route.contentType }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (path, body, contentType, status = 200) => routes.set(path, { body, contentType, status }),
    hits: (path) => counts.get(path) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
