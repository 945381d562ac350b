/**
 * Redirect URI policy (src/docs/notes/oauth.md, RFC 8252, OAuth 2.1 §2.3.1): which URIs a client may register, and
 * whether a presented URI matches a registered one. Pure, no I/O.
 */

/** Loopback hosts as URL.hostname spells them. RFC 8252 §7.3 prefers IP literals; localhost is common in practice. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Private-use schemes of MCP clients in the field that are not in reverse-domain form. Any other
 * scheme must be reverse-domain (RFC 8252 §7.1: `com.example.app:`): a bare word may be a handler
 * the operating system runs on the person's machine (`search-ms:`, `shell:`, `msdt:`, `hcp:`,
 * `itms-services:`, `tn3270:` …), which no consent page should send a browser to.
 */
export const KNOWN_CLIENT_SCHEMES: readonly string[] = [
  "cursor",
  "vscode",
  "vscode-insiders",
  "vscodium",
  "code-oss",
  "windsurf",
  "claude",
  "zed",
  "kiro",
  "trae",
  "positron",
  "raycast",
  "warp",
  "goose",
];
const KNOWN = new Set(KNOWN_CLIENT_SCHEMES.map((scheme) => `${scheme}:`));

/** A reverse-domain scheme: at least two dot-separated labels, e.g. `com.example.app:`. */
const REVERSE_DOMAIN = /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+:$/;

const MAX_LENGTH = 2000;

export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** Why `raw` may not be a redirect URI, or null when it may. The reason is a short fixed sentence. */
export function redirectUriProblem(raw: unknown): string | null {
  if (typeof raw !== "string" || raw === "") return "must be a non-empty string";
  if (raw.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`;
  // OAuth 2.1 §2.3.1: no fragment component (checked on the raw string: URL drops an empty "#").
  if (raw.includes("#")) return "must not contain a fragment";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URI";
  }
  if (url.protocol === "https:") return url.hostname ? null : "must name a host";
  if (url.protocol === "http:")
    return isLoopbackHttp(url) ? null : "must use https, or http only on a loopback host (localhost, 127.0.0.1, [::1])";
  // RFC 8252 §7.1 private-use scheme (com.example.app:/cb), or a known client's (cursor://…, vscode://…).
  if (KNOWN.has(url.protocol) || REVERSE_DOMAIN.test(url.protocol)) return null;
  return "must not use this scheme: use https, http on a loopback host, or a private-use scheme in reverse-domain form (com.example.app:/callback)";
}

/**
 * The registered URI that `presented` matches, or null. Exact string comparison (OAuth 2.1 §4.1.1),
 * except for http loopback URIs, whose port is ignored (RFC 8252 §7.3: native apps bind an
 * ephemeral port at request time).
 */
export function matchRedirectUri(registered: readonly string[], presented: string): string | null {
  if (registered.includes(presented)) return presented;
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return null;
  }
  if (!isLoopbackHttp(url) || presented.includes("#")) return null;
  for (const candidate of registered) {
    let reg: URL;
    try {
      reg = new URL(candidate);
    } catch {
      continue;
    }
    if (
      isLoopbackHttp(reg) &&
      reg.hostname === url.hostname &&
      reg.pathname === url.pathname &&
      reg.search === url.search &&
      reg.username === url.username &&
      reg.password === url.password
    ) {
      return candidate;
    }
  }
  return null;
}

/** What the consent page shows as "where you will be sent": the host, or the scheme of a private-use URI. */
export function redirectHost(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return url.host;
    return url.host ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return raw;
  }
}
