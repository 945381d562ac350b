/**
 * The web app's static files are real files in src/web/assets/, embedded by
 * scripts/build-web-assets.ts: the generated module must hold exactly what is on disk, and the
 * server must serve those bytes at the same URLs with the same headers.
 */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ASSET_FILES, assetTexts } from "../../scripts/build-web-assets.ts";
import { WEB_ASSET_FILES } from "../../src/web/assets/files.generated.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe("web assets", () => {
  it("embeds every file of src/web/assets/ as it is on disk (run `npm run build:assets` if this fails)", () => {
    expect(Object.keys(WEB_ASSET_FILES).sort()).toEqual([...ASSET_FILES].sort());
    expect(WEB_ASSET_FILES).toEqual(assetTexts());
  });

  it.each([
    ["/static/crew.css", "crew.css", "text/css; charset=utf-8"],
    ["/static/crew.js", "crew.js", "text/javascript; charset=utf-8"],
    ["/static/crew.svg", "crew.svg", "image/svg+xml"],
    ["/favicon.ico", "crew.svg", "image/svg+xml"],
  ] as const)("serves %s from %s with its type, a short cache and nosniff", async (path, file, type) => {
    const res = await fetch(`${s.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toBe(assetTexts()[file]);
  });

  it("keeps a page's stylesheet and script under 60 KB compressed together (src/docs/notes/web-app.md#a-daily-tool)", () => {
    const texts = assetTexts();
    const compressed = gzipSync(texts["crew.css"]).length + gzipSync(texts["crew.js"]).length;
    expect(compressed).toBeGreaterThan(1000);
    expect(compressed).toBeLessThanOrEqual(60 * 1024);
  });
});
