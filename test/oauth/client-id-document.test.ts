/**
 * The pure parts of client ID metadata documents (src/docs/notes/oauth.md): which client ids name a document,
 * how long an answer is reused, what a document must say; and the limits of loading one, through
 * the outbound policy's connector seam (the network end is played by the connector here; the whole
 * path over real TLS is test/e2e/client-id-document.test.ts).
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { HOUR, ManualClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/log.ts";
import type { OutboundConnector } from "../../src/lib/outbound-policy.ts";
import {
  ClientDocumentProblem,
  clientFromDocument,
  freshnessMs,
  isClientIdDocumentUrl,
  loadDocumentClient,
  MAX_CACHE_MS,
} from "../../src/oauth/client-id-document.ts";
import { resolveDeps } from "../../src/resolve-deps.ts";
import type { Db } from "../../src/store/db.ts";

const URL_ID = "https://app.example.com/oauth/client.json";
const doc = (extra: Record<string, unknown> = {}) => ({
  client_id: URL_ID,
  client_name: "App",
  redirect_uris: ["https://app.example.com/callback"],
  ...extra,
});

describe("isClientIdDocumentUrl", () => {
  it("accepts https URLs with a path, refuses everything else", () => {
    expect(isClientIdDocumentUrl(URL_ID)).toBe(true);
    expect(isClientIdDocumentUrl("https://app.example.com/c?v=1")).toBe(true);
    for (const id of [
      "crew_client_0123456789",
      "http://app.example.com/client.json",
      "https://app.example.com",
      "https://app.example.com/",
      "https://app.example.com/client.json#x",
      "https://user:pw@app.example.com/client.json",
      "https://app.example.com/a/../client.json",
      "https://app.example.com/./client.json",
    ]) {
      expect(isClientIdDocumentUrl(id), id).toBe(false);
    }
  });
});

describe("freshnessMs", () => {
  const now = Date.UTC(2026, 10, 24);
  it("follows max-age, no-store/no-cache and Expires, capped at 24 hours", () => {
    expect(freshnessMs(new Headers({ "Cache-Control": "public, max-age=600" }), now)).toBe(600_000);
    expect(freshnessMs(new Headers({ "Cache-Control": "max-age=999999" }), now)).toBe(MAX_CACHE_MS);
    expect(freshnessMs(new Headers({ "Cache-Control": "no-store, max-age=600" }), now)).toBe(0);
    expect(freshnessMs(new Headers({ "Cache-Control": "no-cache" }), now)).toBe(0);
    const expires = new Headers({ Date: new Date(now).toUTCString(), Expires: new Date(now + HOUR).toUTCString() });
    expect(freshnessMs(expires, now)).toBe(HOUR);
    expect(freshnessMs(new Headers(), now)).toBe(0);
  });
});

describe("clientFromDocument", () => {
  it("uses the document's redirect URIs and name as if registered", () => {
    const client = clientFromDocument(URL_ID, doc(), 1);
    expect(client).toMatchObject({ id: URL_ID, secretHash: null });
    expect(client.metadata).toMatchObject({ client_name: "App", redirect_uris: ["https://app.example.com/callback"] });
  });

  it("refuses a different client_id, a secret, a confidential method, bad redirect URIs and non-objects", () => {
    const refused = (body: unknown) => {
      try {
        clientFromDocument(URL_ID, body, 1);
        return "";
      } catch (error) {
        expect(error).toBeInstanceOf(ClientDocumentProblem);
        return (error as ClientDocumentProblem).detail;
      }
    };
    expect(refused(doc({ client_id: "https://app.example.com/other.json" }))).toBe("its client_id is not the URL it was fetched from");
    expect(refused(doc({ client_secret: "s" }))).toBe("it carries a client secret");
    expect(refused(doc({ token_endpoint_auth_method: "client_secret_basic" }))).toBe("token_endpoint_auth_method must be none");
    expect(refused(doc({ redirect_uris: ["https://app.example.com/cb#frag"] }))).toContain("redirect_uris[0]");
    expect(refused([doc()])).toBe("not a JSON object");
  });
});

describe("loadDocumentClient", () => {
  const clock = new ManualClock();
  /** A connector answering every request with `answer()`, counting the requests. */
  function depsWith(answer: () => Response) {
    const calls: string[] = [];
    const connect: OutboundConnector = async ({ url }) => {
      calls.push(url.href);
      return answer();
    };
    const config = loadConfig({ DATABASE_URL: "file:unused.db" });
    const deps = resolveDeps({
      db: {} as Db,
      config,
      clock,
      log: silentLogger,
      outbound: { allowPrivate: false, resolve: async () => ["93.184.215.14"], connect },
    });
    return { deps, calls };
  }

  it("caches per Cache-Control, at most 24 hours, and fetches again once stale", async () => {
    const { deps, calls } = depsWith(() => Response.json(doc(), { headers: { "Cache-Control": "max-age=999999" } }));
    await loadDocumentClient(deps, URL_ID);
    await loadDocumentClient(deps, URL_ID);
    expect(calls).toHaveLength(1);
    clock.advance(MAX_CACHE_MS + 1);
    await loadDocumentClient(deps, URL_ID);
    expect(calls).toHaveLength(2);
  });

  it("refuses over 5 KB (declared or streamed), a non-200 answer and a redirect, with the one unreachable message", async () => {
    const big = JSON.stringify(doc({ padding: "x".repeat(6000) }));
    const streamed = () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(big));
            controller.close();
          },
        }),
      );
    const answers: [() => Response, string][] = [
      [() => new Response(big, { headers: { "Content-Length": String(big.length) } }), "more than 5120"],
      [streamed, "more than 5120"],
      [() => new Response("gone", { status: 404 }), "answered 404"],
      [() => new Response(null, { status: 302, headers: { Location: "https://elsewhere.example/c.json" } }), "redirected"],
    ];
    for (const [answer, detail] of answers) {
      const { deps } = depsWith(answer);
      const error = await loadDocumentClient(deps, URL_ID).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientDocumentProblem);
      expect((error as ClientDocumentProblem).detail).toContain(detail);
      expect((error as Error).message).toMatch(
        /^Crew could not load the application's client metadata document from app\.example\.com\. Try again later, or ask the application's maker\. If this server has no outbound internet access, its operator can set OAUTH_CLIENT_METADATA_DOCUMENTS=off/,
      );
    }
  });
});
