/**
 * The outbound request policy (src/docs/notes/outbound-requests.md). Real HTTP servers on loopback; the policy under test
 * refuses loopback, so the "public" cases use an injected resolver and a connector that records the
 * vetted address it was asked to dial and then reaches the loopback server (the network between
 * this machine and a public address is what is out of reach here).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAllowedAddress, OutboundFailed, OutboundRefused, outboundFetch, vetHost } from "../../src/integrations/outbound.ts";
import type { OutboundConnector, OutboundPolicy } from "../../src/lib/outbound-policy.ts";
import { pinnedConnector } from "../../src/outbound-connector.ts";

const PUBLIC = "93.184.216.34";

describe("issue 11 item 2: isAllowedAddress", () => {
  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd00:ec2::254",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:8.8.8.8",
    "64:ff9b::7f00:1",
    "64:ff9b::808:808",
    "2002:7f00:1::",
    "2002:808:808::1",
    "::7f00:1",
    "::8.8.8.8",
    "2001::1",
    "2001:db8::1",
    "not an address",
    "example.com",
  ])("refuses %s", (ip) => {
    expect(isAllowedAddress(ip, false)).toBe(false);
  });

  it.each(["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "[2a00:1450:4001:80b::200e]"])("allows %s", (ip) => {
    expect(isAllowedAddress(ip, false)).toBe(true);
  });

  it("allows private addresses when ALLOW_PRIVATE_TARGETS is on, still only addresses", () => {
    expect(isAllowedAddress("127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("::ffff:127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("localhost", true)).toBe(false);
  });
});

const fakeResolver =
  (table: Record<string, string[]>): OutboundPolicy["resolve"] =>
  async (host) => {
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };

describe("issue 11 item 2: vetHost", () => {
  const policy: OutboundPolicy = {
    allowPrivate: false,
    resolve: fakeResolver({
      "good.example": [PUBLIC, "2606:4700::1"],
      "mixed.example": [PUBLIC, "10.0.0.5"],
      "rebind.example": ["64:ff9b::a9fe:a9fe"],
    }),
  };

  it("returns the first address of a name whose every address is public", async () => {
    await expect(vetHost(policy, "good.example")).resolves.toBe(PUBLIC);
  });

  it("refuses a name when any address is private, an embedded-IPv4 form, unresolvable or localhost", async () => {
    for (const host of ["mixed.example", "rebind.example", "missing.example", "localhost", "a.localhost", "[::1]", "127.1.2.3"]) {
      await expect(vetHost(policy, host), host).rejects.toBeInstanceOf(OutboundRefused);
    }
  });

  it("takes literals as they are", async () => {
    await expect(vetHost(policy, "[2606:4700::1]")).resolves.toBe("2606:4700::1");
    await expect(vetHost({ ...policy, allowPrivate: true }, "127.0.0.1")).resolves.toBe("127.0.0.1");
  });
});

describe("issue 11 item 2: outboundFetch", () => {
  let server: Server;
  let origin: string;
  let port: number;
  const seen: { url: string; method: string; auth: string | undefined; body: string; host?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ url: req.url ?? "", method: req.method ?? "", auth: req.headers.authorization, body, host: req.headers.host });
        const path = new URL(req.url ?? "/", "http://x").pathname;
        if (path === "/ok") return res.end("hello");
        if (path === "/to-ok") return res.writeHead(302, { location: "/ok" }).end();
        if (path === "/keep") return res.writeHead(307, { location: "/ok" }).end();
        if (path === "/to-private") return res.writeHead(302, { location: "http://127.0.0.1:1/x" }).end();
        if (path === "/to-other") return res.writeHead(302, { location: `http://other.example:${port}/ok` }).end();
        if (path === "/loop") return res.writeHead(302, { location: "/loop" }).end();
        if (path === "/big") return res.end("x".repeat(5000));
        if (path === "/big-stream") {
          res.writeHead(200); // chunked, no content-length
          res.write("y".repeat(3000));
          return setTimeout(() => res.end("y".repeat(3000)), 5);
        }
        if (path === "/slow") return; // never answers
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** Dials the loopback server whatever public address the policy vetted, and records that address. */
  function recordingConnector(dialled: string[]): OutboundConnector {
    return async ({ url, address, method, headers, body, signal }) => {
      dialled.push(`${url.hostname}→${address}`);
      const local = new URL(url.pathname + url.search, origin);
      return fetch(local, { method, headers, body, signal, redirect: "manual" });
    };
  }

  it("connects to the vetted address and follows a redirect, vetting the next hop", async () => {
    const dialled: string[] = [];
    const policy: OutboundPolicy = {
      allowPrivate: false,
      resolve: fakeResolver({ "api.example": [PUBLIC] }),
      connect: recordingConnector(dialled),
    };
    const res = await outboundFetch(policy, `http://api.example:${port}/to-ok`);
    expect(await res.text()).toBe("hello");
    expect(dialled).toEqual([`api.example→${PUBLIC}`, `api.example→${PUBLIC}`]);
  });

  it("refuses a redirect to a private address before connecting to it", async () => {
    const dialled: string[] = [];
    const policy: OutboundPolicy = {
      allowPrivate: false,
      resolve: fakeResolver({ "api.example": [PUBLIC] }),
      connect: recordingConnector(dialled),
    };
    await expect(outboundFetch(policy, `http://api.example:${port}/to-private`)).rejects.toBeInstanceOf(OutboundRefused);
    expect(dialled).toEqual([`api.example→${PUBLIC}`]);
  });

  it("refuses a name that resolves to loopback without dialling", async () => {
    const dialled: string[] = [];
    const policy: OutboundPolicy = {
      allowPrivate: false,
      resolve: fakeResolver({ "evil.example": ["::ffff:127.0.0.1"] }),
      connect: recordingConnector(dialled),
    };
    await expect(outboundFetch(policy, `http://evil.example:${port}/ok`)).rejects.toBeInstanceOf(OutboundRefused);
    await expect(outboundFetch(policy, `${origin}/ok`)).rejects.toBeInstanceOf(OutboundRefused);
    await expect(outboundFetch(policy, "file:///etc/passwd")).rejects.toBeInstanceOf(OutboundRefused);
    expect(dialled).toEqual([]);
  });

  it("drops Authorization on a redirect to another origin, keeps method and body on 307", async () => {
    const dialled: string[] = [];
    const policy: OutboundPolicy = {
      allowPrivate: false,
      resolve: fakeResolver({ "api.example": [PUBLIC], "other.example": ["8.8.4.4"] }),
      connect: recordingConnector(dialled),
    };
    seen.length = 0;
    await outboundFetch(policy, `http://api.example:${port}/to-other`, { headers: { authorization: "Basic c2VjcmV0" } });
    expect(seen.map((s) => [s.url, s.auth])).toEqual([
      ["/to-other", "Basic c2VjcmV0"],
      ["/ok", undefined],
    ]);
    expect(dialled).toEqual([`api.example→${PUBLIC}`, "other.example→8.8.4.4"]);
    seen.length = 0;
    await outboundFetch(policy, `http://api.example:${port}/keep`, { method: "PUT", body: "payload" });
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ["PUT", "/keep", "payload"],
      ["PUT", "/ok", "payload"],
    ]);
  });

  const open: OutboundPolicy = { allowPrivate: true, resolve: fakeResolver({}) };

  it("stops after maxRedirects", async () => {
    const error = await outboundFetch(open, `${origin}/loop`, { maxRedirects: 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(OutboundFailed);
    expect(error.reason).toMatch(/more than 2 redirects/);
  });

  it("refuses bodies over maxBytes, declared or streamed", async () => {
    await expect(outboundFetch(open, `${origin}/big`, { maxBytes: 4096 })).rejects.toBeInstanceOf(OutboundFailed);
    const streamed = await outboundFetch(open, `${origin}/big-stream`, { maxBytes: 4096 });
    await expect(streamed.text()).rejects.toBeInstanceOf(OutboundFailed);
    expect(await (await outboundFetch(open, `${origin}/big`, { maxBytes: 5000 })).text()).toHaveLength(5000);
  });

  it("aborts after timeoutMs and reports an unreachable port the same way (OutboundFailed)", async () => {
    const slow = await outboundFetch(open, `${origin}/slow`, { timeoutMs: 100 }).catch((e) => e);
    expect(slow).toBeInstanceOf(OutboundFailed);
    const closed = await outboundFetch(open, "http://127.0.0.1:1/", { timeoutMs: 2000 }).catch((e) => e);
    expect(closed).toBeInstanceOf(OutboundFailed);
  });

  it("the server's pinned connector dials the vetted address, never resolving the name again, and sends the name as Host", async () => {
    // crew-pinned.invalid cannot resolve (RFC 6761 .invalid): only the pinned address can reach the server.
    const policy: OutboundPolicy = {
      allowPrivate: true,
      resolve: fakeResolver({ "crew-pinned.invalid": ["127.0.0.1"] }),
      connect: pinnedConnector,
    };
    seen.length = 0;
    const res = await outboundFetch(policy, `http://crew-pinned.invalid:${port}/to-ok`);
    expect(await res.text()).toBe("hello");
    expect(seen.map((r) => [r.url, r.host])).toEqual([
      ["/to-ok", `crew-pinned.invalid:${port}`],
      ["/ok", `crew-pinned.invalid:${port}`],
    ]);
    const refused = await outboundFetch({ ...policy, allowPrivate: false }, `http://crew-pinned.invalid:${port}/ok`).catch((e) => e);
    expect(refused).toBeInstanceOf(OutboundRefused);
  });
});
