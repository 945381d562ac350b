/**
 * Client ID Metadata Documents (src/docs/notes/client-id-metadata-documents.md; draft-ietf-oauth-client-id-metadata-document, the MCP
 * 2025-11-25 registration path): a `client_id` that is an https URL with a path names a JSON
 * document describing the client. Crew fetches it through the outbound policy (src/docs/notes/outbound-requests.md: a refused
 * and an unreachable address read the same), at most 5 KB within 5 s, without following redirects
 * (the document must live at the URL it names), and keeps it as long as its HTTP caching headers
 * allow, never longer than 24 hours. Its `client_id` must equal the URL; its `redirect_uris` and
 * `client_name` are then used as if registered. Nothing is stored: the client is the document.
 */
import type { AppDeps } from "../deps.ts";
import { OutboundFailed, OutboundRefused, outboundFetch } from "../integrations/outbound.ts";
import { HOUR } from "../lib/clock.ts";
import { findClient, type OAuthClient } from "../store/oauth/clients.ts";
import { validateClientMetadata } from "./client-metadata.ts";

export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;
export const MAX_CACHE_MS = 24 * HOUR;
/** Distinct documents kept at once; the oldest entry goes first. */
const MAX_CACHED = 500;

/**
 * True when a client_id names a metadata document (draft §3): https, a path other than "/", no
 * fragment, no credentials, no dot segments. Registered client ids (random strings) never are.
 */
export function isClientIdDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://")) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.hash !== "" || clientId.includes("#") || url.username !== "" || url.password !== "") return false;
  if (url.pathname === "/" || url.pathname === "") return false;
  // The URL parser resolves "." and ".." segments away: the text must already be in that form.
  return !/\/\.{1,2}(\/|$|\?)/.test(clientId);
}

/** The host a person sees on the consent page for a document client. */
export const documentHost = (clientId: string): string => new URL(clientId).host;

/**
 * How long a response may be reused (RFC 9111 §4.2.1): no-store/no-cache → not at all;
 * max-age; else Expires − Date. Capped at 24 h; without any of these it is not reused.
 */
export function freshnessMs(headers: Headers, now: number): number {
  const cacheControl = (headers.get("cache-control") ?? "").toLowerCase();
  const directives = new Map(
    cacheControl
      .split(",")
      .map((d) => d.trim())
      .filter((d) => d !== "")
      .map((d) => {
        const [name, value] = d.split("=", 2);
        return [name?.trim() ?? "", value?.trim().replace(/^"|"$/g, "")] as const;
      }),
  );
  if (directives.has("no-store") || directives.has("no-cache")) return 0;
  const maxAge = directives.get("max-age");
  if (maxAge !== undefined) {
    const seconds = /^\d+$/.test(maxAge) ? Number(maxAge) : 0;
    return Math.min(seconds * 1000, MAX_CACHE_MS);
  }
  const expires = headers.get("expires");
  if (expires !== null) {
    const at = Date.parse(expires);
    const date = Date.parse(headers.get("date") ?? "");
    const base = Number.isNaN(date) ? now : date;
    return Number.isNaN(at) ? 0 : Math.max(0, Math.min(at - base, MAX_CACHE_MS));
  }
  return 0;
}

/** Why a document client cannot be used: `detail` for the log, `message` for the person. */
export class ClientDocumentProblem extends Error {
  constructor(
    readonly detail: string,
    message: string,
  ) {
    super(message);
  }
}

const unreachable = (host: string, detail: string) =>
  new ClientDocumentProblem(
    detail,
    `Crew could not load the application's client metadata document from ${host}. Try again later, or ask the application's maker. ` +
      "If this server has no outbound internet access, its operator can set OAUTH_CLIENT_METADATA_DOCUMENTS=off: " +
      "applications then register with Crew directly; remove the server from your application and add it again.",
  );

/** Documents turned off (air-gapped deployments): say what the person and the operator can do. */
const turnedOff = () =>
  new ClientDocumentProblem(
    "client metadata documents are off (OAUTH_CLIENT_METADATA_DOCUMENTS=off)",
    "This Crew server does not accept applications that identify themselves by a web address (client metadata documents are " +
      "turned off, OAUTH_CLIENT_METADATA_DOCUMENTS=off). Remove the server from your application and add it again: it then " +
      "registers with Crew directly. If it keeps sending you here, connect it with an API key instead (Authorization: Bearer crew_…).",
  );
const invalid = (detail: string) =>
  new ClientDocumentProblem(detail, `The application's client metadata document is not valid (${detail}), so Crew cannot let it sign in.`);

interface CacheEntry {
  client: OAuthClient;
  expiresAt: number;
}

/** One cache per app (deps): tests and processes do not share entries. */
const caches = new WeakMap<AppDeps, Map<string, CacheEntry>>();

function cacheOf(deps: AppDeps): Map<string, CacheEntry> {
  let cache = caches.get(deps);
  if (!cache) {
    cache = new Map();
    caches.set(deps, cache);
  }
  return cache;
}

async function fetchDocument(deps: AppDeps, url: string): Promise<{ body: unknown; headers: Headers }> {
  const host = documentHost(url);
  let response: Response;
  let text: string;
  try {
    response = await outboundFetch(deps.outbound, url, {
      headers: { Accept: "application/json" },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: MAX_DOCUMENT_BYTES,
      redirect: "error",
    });
    text = await response.text();
  } catch (error) {
    if (error instanceof OutboundRefused || error instanceof OutboundFailed) throw unreachable(host, `${error.name}: ${error.reason}`);
    // A body aborted by the size cap or the timeout surfaces as the stream's error.
    const cause = (error as { cause?: unknown })?.cause ?? error;
    if (cause instanceof OutboundFailed) throw unreachable(host, `OutboundFailed: ${cause.reason}`);
    throw unreachable(host, `fetch failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status !== 200) throw unreachable(host, `${url} answered ${response.status}`);
  try {
    return { body: JSON.parse(text), headers: response.headers };
  } catch {
    throw invalid("not JSON");
  }
}

/** The client a document names, validated like a registration. */
export function clientFromDocument(url: string, body: unknown, now: number): OAuthClient {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("not a JSON object");
  const doc = body as Record<string, unknown>;
  if (doc.client_id !== url) throw invalid("its client_id is not the URL it was fetched from");
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined) throw invalid("it carries a client secret");
  const checked = validateClientMetadata(doc);
  if (!checked.ok) throw invalid(checked.description);
  // No secret can be shared through a public document (draft §4): only public clients.
  if (checked.metadata.token_endpoint_auth_method !== "none") throw invalid("token_endpoint_auth_method must be none");
  return { id: url, secretHash: null, metadata: checked.metadata, createdAt: now, firstUsedAt: null };
}

/** The client a document URL names: from the cache while fresh, else fetched. Throws ClientDocumentProblem. */
export async function loadDocumentClient(deps: AppDeps, url: string): Promise<OAuthClient> {
  const now = deps.clock.now();
  const cache = cacheOf(deps);
  const cached = cache.get(url);
  if (cached && cached.expiresAt > now) return cached.client;
  cache.delete(url);
  try {
    const { body, headers } = await fetchDocument(deps, url);
    const client = clientFromDocument(url, body, now);
    const fresh = freshnessMs(headers, now);
    if (fresh > 0) {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
      cache.set(url, { client, expiresAt: now + fresh });
    }
    return client;
  } catch (error) {
    if (error instanceof ClientDocumentProblem) {
      deps.log.info("client metadata document refused", { client_id: url, detail: error.detail });
    }
    throw error;
  }
}

/** Registered clients from the store; document URLs through their document (authorization requests). */
export function clientLookup(deps: AppDeps): (clientId: string) => Promise<OAuthClient | null> {
  return async (clientId) => {
    if (!isClientIdDocumentUrl(clientId)) return findClient(deps.db, clientId);
    if (!deps.config.clientMetadataDocuments) throw turnedOff();
    return loadDocumentClient(deps, clientId);
  };
}

/**
 * A document client at the token and revocation endpoints: public (no secret can be shared through
 * a public document), and everything it presents there — code, refresh token — is bound to its
 * client_id, checked against the document when the code was issued; so no fetch is needed there.
 */
export function publicDocumentClient(clientId: string, now: number): OAuthClient {
  return {
    id: clientId,
    secretHash: null,
    metadata: { redirect_uris: [], token_endpoint_auth_method: "none", grant_types: [], response_types: [] },
    createdAt: now,
    firstUsedAt: null,
  };
}
