/**
 * The outbound request policy (src/docs/notes/outbound-requests.md): every address a user supplies — webhook, CalDAV, IMAP,
 * feed and client-metadata URLs — is checked here before every connection and after every
 * redirect. Only public unicast addresses pass (unless ALLOW_PRIVATE_TARGETS is on); a host name
 * is resolved and EVERY address it resolves to must pass, and the connection then goes to the
 * address that was checked, so a DNS answer that changes in between (rebinding) cannot slip through.
 *
 * Refused and unreachable targets are two error classes for the log, but callers show both to the
 * user with one message, so error texts cannot be used to scan ports.
 *
 * Platform parts are injected: `resolve` (node:dns at boot, a fake in tests) and `connect`, an
 * HTTP(S) client that dials a given address while still speaking TLS to the host name. Without a
 * connector (web-standard runtimes) the global fetch is used after vetting — the name is resolved
 * twice then, which is the documented residual risk.
 */

import ipaddr from "ipaddr.js";
import type { OutboundPolicy } from "../lib/outbound-policy.ts";
import { inSpan, traceHeaders, tracingEnabled } from "../lib/tracing.ts";

/** The policy refused the target. `reason` is for the log only. */
export class OutboundRefused extends Error {
  override name = "OutboundRefused";
  constructor(readonly reason: string) {
    super(`Outbound request refused: ${reason}`);
  }
}

/** The target could not be reached, timed out, or answered too much. `reason` is for the log only. */
export class OutboundFailed extends Error {
  override name = "OutboundFailed";
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Outbound request failed: ${reason}`, options);
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

/** Strips URL brackets and an IPv6 zone ("fe80::1%eth0" is link-local whatever the zone). */
const bare = (host: string) => host.replace(/^\[(.*)\]$/, "$1").split("%")[0] ?? "";

/** A literal IP address (only the four-part decimal IPv4 form — URL parsing normalises 0x7f.1 and friends), or null. */
function parseLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = bare(host);
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(":") && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/**
 * True when the address may be connected to under the policy (literal IPv4/IPv6, incl.
 * embedded-IPv4 forms). Only "unicast" passes: ipaddr.js names every special range (loopback,
 * private, link-local, CGNAT, multicast, broadcast, reserved, and the IPv6 forms that embed an
 * IPv4 address: IPv4-mapped, NAT64 64:ff9b::/96 (RFC 6052), 6to4 2002::/16, Teredo); the one it
 * calls unicast, the deprecated IPv4-compatible ::/96 (RFC 4291 §2.5.5.1), is refused here.
 */
export function isAllowedAddress(ip: string, allowPrivate: boolean): boolean {
  const address = parseLiteral(ip);
  if (!address) return false;
  if (allowPrivate) return true;
  if (address.range() !== "unicast") return false;
  if (address.kind() === "ipv6") {
    const parts = (address as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0)) return false; // ::a.b.c.d
  }
  return true;
}

/** Host names that always mean this machine (RFC 6761), with or without the root dot. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Why `host` is refused before any DNS lookup (a literal address that is not allowed, or a name
 * that always means this machine), or null. For checks that cannot resolve (a subscription being
 * created); `vetHost` starts with it.
 */
export function refusedWithoutLookup(host: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  if (parseLiteral(host)) return isAllowedAddress(host, false) ? null : `${bare(host)} is not a public address`;
  return isLocalName(host) ? `${host} names this machine` : null;
}

/**
 * Resolves a host name (or takes a literal), checks EVERY address; returns the first allowed
 * address to connect to. Throws OutboundRefused (also when the name does not resolve: to the
 * user that is the same as refused).
 */
export async function vetHost(policy: OutboundPolicy, host: string): Promise<string> {
  const refused = refusedWithoutLookup(host, policy.allowPrivate);
  if (refused) throw new OutboundRefused(refused);
  if (parseLiteral(host)) return bare(host);
  let addresses: string[];
  try {
    addresses = await policy.resolve(bare(host));
  } catch (error) {
    throw new OutboundRefused(`${host} does not resolve (${(error as Error)?.message ?? error})`);
  }
  if (addresses.length === 0) throw new OutboundRefused(`${host} has no addresses`);
  const notPublic = addresses.filter((a) => !isAllowedAddress(a, policy.allowPrivate));
  if (notPublic.length > 0) throw new OutboundRefused(`${host} resolves to ${notPublic.join(", ")}, not public`);
  return addresses[0] as string;
}

export interface OutboundInit extends RequestInit {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The request body as bytes, so it can be replayed on a 307/308 and sent through a connector. */
async function bodyBytes(body: RequestInit["body"]): Promise<Uint8Array<ArrayBuffer> | null> {
  if (body === undefined || body === null) return null;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** A Response whose body errors with OutboundFailed once more than `maxBytes` arrive. */
function capped(response: Response, maxBytes: number, url: string): Response {
  const declared = Number(response.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => {});
    throw new OutboundFailed(`${url} answered ${declared} bytes, more than ${maxBytes}`);
  }
  if (!response.body) return response;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new OutboundFailed(`${url} answered more than ${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  });
  const body = response.body.pipeThrough(limit);
  const out = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // Response's constructor cannot carry the final URL; callers that need it read `url` from here.
  Object.defineProperty(out, "url", { value: url });
  return out;
}

/** One hop: pinned through the connector when there is one, else the global fetch by name. */
async function hop(
  policy: OutboundPolicy,
  url: URL,
  address: string,
  method: string,
  headers: Headers,
  body: Uint8Array<ArrayBuffer> | null,
  signal: AbortSignal,
): Promise<Response> {
  if (policy.connect) return policy.connect({ url, address, method, headers, body, signal });
  return fetch(url, { method, headers, body, signal, redirect: "manual" });
}

/**
 * fetch() through the policy: vets the target, connects to the vetted address (so DNS rebinding
 * cannot slip through), follows up to `maxRedirects` (default 3) redirects vetting each hop, aborts
 * after `timeoutMs` (default 10 s), refuses bodies over `maxBytes` (default 1 MiB) while reading.
 * Throws OutboundRefused or OutboundFailed (unreachable/timeout/too large). Callers show both to
 * users with ONE message.
 */
export function outboundFetch(policy: OutboundPolicy, url: string, init: OutboundInit = {}): Promise<Response> {
  if (!tracingEnabled()) return fetchThroughPolicy(policy, url, init);
  // A client span (method and host, never the path or query), and the trace carried to the peer (src/docs/notes/tracing.md).
  const method = (init.method ?? "GET").toUpperCase();
  const host = URL.canParse(url) ? new URL(url).host : "invalid";
  return inSpan(
    `${method} ${host}`,
    { "http.request.method": method, "server.address": host },
    async (span) => {
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(traceHeaders())) if (!headers.has(name)) headers.set(name, value);
      const response = await fetchThroughPolicy(policy, url, { ...init, headers });
      span?.set({ "http.response.status_code": response.status });
      return response;
    },
    { kind: "client" },
  );
}

async function fetchThroughPolicy(policy: OutboundPolicy, url: string, init: OutboundInit): Promise<Response> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, maxBytes = DEFAULT_MAX_BYTES, maxRedirects = DEFAULT_MAX_REDIRECTS } = init;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  let method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  let body = await bodyBytes(init.body);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundRefused(`${url} is not a URL`);
  }
  for (let redirects = 0; ; redirects++) {
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      throw new OutboundRefused(`${target.protocol} is not http(s)`);
    }
    if (target.username || target.password) throw new OutboundRefused("URL carries credentials");
    // Private targets allowed and nothing to pin: the name is left to fetch (no resolver needed).
    const address =
      policy.allowPrivate && !policy.connect && !parseLiteral(target.hostname) ? target.hostname : await vetHost(policy, target.hostname);
    let response: Response;
    try {
      response = await hop(policy, target, address, method, headers, body, signal);
    } catch (error) {
      if (error instanceof OutboundRefused || error instanceof OutboundFailed) throw error;
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : describe(error);
      throw new OutboundFailed(`${target.origin} (${address}): ${why}`, { cause: error });
    }
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null || init.redirect === "manual") {
      return capped(response, maxBytes, target.href);
    }
    void response.body?.cancel().catch(() => {});
    if (init.redirect === "error") throw new OutboundFailed(`${target.href} redirected`);
    if (redirects >= maxRedirects) throw new OutboundFailed(`more than ${maxRedirects} redirects from ${url}`);
    const next = new URL(location, target);
    // Fetch standard §4.4 (HTTP-redirect fetch): 301/302 turn POST into GET, 303 anything but HEAD.
    if ((response.status === 303 && method !== "HEAD") || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = null;
      for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) {
        headers.delete(name);
      }
    }
    // Credentials do not travel to another origin (Fetch standard: Authorization is dropped cross-origin).
    if (next.origin !== target.origin) {
      headers.delete("authorization");
      headers.delete("cookie");
    }
    target = next;
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.code;
  return `${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`;
}
