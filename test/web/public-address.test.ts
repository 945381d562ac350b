/**
 * One public address (src/docs/notes/web-app.md): pages asked for under another host than BASE_URL's are sent
 * there (GET) or refused with a page linking there (forms); API clients are left alone; the
 * start-up line names BASE_URL only. Real server, real HTTP with the Host header a browser sends.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listeningLine } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

/** A request to the server's socket, as if the browser had typed `host` into the address bar. */
function asHost(host: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const { port } = new URL(s.url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers: { host, ...options.headers } },
      (res) => {
        let text = "";
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("issue 11 item 12: one public address", () => {
  const other = () => `localhost:${new URL(s.url).port}`;

  it("redirects a page asked for under another host to the same path on BASE_URL", async () => {
    const reply = await asHost(other(), "/sign-in?next=%2Fdashboard", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(reply.status).toBe(307);
    expect(reply.headers.location).toBe(`${s.url}/sign-in?next=%2Fdashboard`);
    const same = await asHost(new URL(s.url).host, "/sign-in", { headers: { accept: "text/html" } });
    expect(same.status).toBe(200);
  });

  it("refuses a form sent under another host with a page linking to BASE_URL, not a cross-site loop", async () => {
    const reply = await asHost(other(), "/sign-in", {
      method: "POST",
      headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded", origin: `http://${other()}` },
      body: "email=a%40example.com&password=x",
    });
    expect(reply.status).toBe(421);
    expect(reply.headers["content-type"]).toMatch(/^text\/html/);
    expect(reply.text).toContain(`href="${s.url}/sign-in"`);
    expect(reply.text).not.toContain("Cross-site request refused");
  });

  it("leaves API clients and untrusted forwarded requests alone", async () => {
    const api = await asHost(other(), "/api/mcp/agents", { headers: { accept: "application/json" } });
    expect(api.status).toBe(401);
    const proxied = await asHost("crew-upstream:3000", "/sign-in", { headers: { accept: "text/html", "x-forwarded-for": "192.0.2.1" } });
    expect(proxied.status).toBe(200);
  });

  it("prints BASE_URL only when it starts", () => {
    const config = loadConfig({ PORT: "3521", BASE_URL: "http://localhost:3521" });
    expect(listeningLine(config, 3521)).toBe("Crew is listening on http://localhost:3521");
    expect(listeningLine(config, 3521)).not.toContain("127.0.0.1");
  });
});
