/**
 * Discovery and documentation (src/docs/notes/discovery.md): /openapi.json, /docs, /docs/errors, the stylesheet,
 * /.well-known/mcp.json, /llms.txt, /llms-full.txt. Public, not quota-counted. Built once per app
 * from the registry (it does not change while the process runs).
 */
import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { anyOriginCors } from "../http/cors.ts";
import { operations } from "../operations/index.ts";
import type { Operation } from "../operations/registry.ts";
import { llmsText, serverCard } from "./discovery.ts";
import { notePage, notesIndexPage, notesOf } from "./notes.ts";
import { buildOpenApi } from "./openapi.ts";
import { errorsPage, referencePage } from "./pages.ts";
import { mcpServerCard, SERVER_CARD_PATH } from "./server-card.ts";
import { DOCS_CSS } from "./style.ts";

function lazy<T>(make: () => T): () => T {
  let value: { v: T } | null = null;
  return () => {
    if (!value) value = { v: make() };
    return value.v;
  };
}

/** Machine-readable documents may be fetched from any origin (no cookie is involved). */
const PUBLIC = { "Cache-Control": "public, max-age=300" };
const PUBLIC_PATHS = [
  "/openapi.json",
  "/.well-known/mcp.json",
  "/llms.txt",
  "/llms-full.txt",
  SERVER_CARD_PATH,
  "/.well-known/mcp/server-card.json",
];

export function docsRoutes(deps: AppDeps, ops: Operation[] = operations): Hono<AppEnv> {
  const settings = { baseUrl: deps.config.baseUrl, rateLimitPerHour: deps.config.rateLimitPerHour };
  const openapi = lazy(() => buildOpenApi(settings, ops));
  const notes = notesOf(deps.notes ?? []);
  const reference = lazy(async () => String(await referencePage(openapi(), ops, notes)));
  const errors = lazy(async () => String(await errorsPage()));
  const card = lazy(() => serverCard(settings, ops));
  const llms = lazy(() => llmsText(settings, ops, false));
  const llmsFull = lazy(() => llmsText(settings, ops, true));
  const text = "text/plain; charset=utf-8";

  const router = new Hono<AppEnv>();
  for (const path of PUBLIC_PATHS) router.use(path, anyOriginCors({ methods: ["GET"], allowHeaders: [], exposeHeaders: [] }));
  router.get("/openapi.json", (c) => c.json(openapi(), 200, PUBLIC));
  router.get("/docs", async (c) => c.html(await reference()));
  router.get("/docs/", (c) => c.redirect("/docs", 301));
  router.get("/docs/errors", async (c) => c.html(await errors()));
  router.get("/docs/notes", async (c) => c.html(await notesIndexPage(notes)));
  router.get("/docs/notes/:slug", async (c) => {
    const note = notes.find((n) => n.slug === c.req.param("slug"));
    if (!note) throw new ApiError(404, "not_found", "No such page; /docs/notes lists them.");
    return c.html(await notePage(note, notes));
  });
  router.get("/docs/assets/docs.css", (c) =>
    c.body(DOCS_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
  );
  router.get("/.well-known/mcp.json", (c) => c.json(card(), 200, PUBLIC));
  // The Server Card; also at the well-known path discovery tools try first.
  const registryCard = lazy(() => mcpServerCard(deps.config.baseUrl));
  for (const path of [SERVER_CARD_PATH, "/.well-known/mcp/server-card.json"]) router.get(path, (c) => c.json(registryCard(), 200, PUBLIC));
  router.get("/llms.txt", (c) => c.body(llms(), 200, { ...PUBLIC, "Content-Type": text }));
  router.get("/llms-full.txt", (c) => c.body(llmsFull(), 200, { ...PUBLIC, "Content-Type": text }));
  return router;
}
