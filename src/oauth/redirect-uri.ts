/**
 * Redirect URI policy (SPEC §6, RFC 8252, OAuth 2.1 §2.3.1): which URIs a client may register, and
 * whether a presented URI matches a registered one. Pure, no I/O.
 */

/** Loopback hosts as URL.hostname spells them. RFC 8252 §7.3 prefers IP literals; localhost is common in practice. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Schemes that are not a native app's private-use scheme (RFC 8252 §7.1): they run code, read
 * files, open browser internals, or are registered for another protocol (IANA permanent schemes).
 * Anything else that parses as a URI scheme is taken as private-use (cursor://, vscode://,
 * com.example.app:/cb), as clients in the field use them.
 */
const REFUSED_SCHEMES = new Set(
  [
    // code, files, in-memory documents
    "javascript",
    "vbscript",
    "livescript",
    "data",
    "file",
    "blob",
    "filesystem",
    "about",
    "mhtml",
    "mk",
    "ms-its",
    "its",
    "jar",
    "wyciwyg",
    "res",
    "view-source",
    "content",
    "intent",
    "android-app",
    "ios-app",
    // browser internals
    "chrome",
    "chrome-extension",
    "chrome-search",
    "chrome-untrusted",
    "chrome-devtools",
    "devtools",
    "edge",
    "brave",
    "opera",
    "vivaldi",
    "moz-extension",
    "moz-icon",
    "resource",
    "safari-extension",
    "safari-web-extension",
    "webkit-extension",
    "ms-browser-extension",
    "browser",
    "read",
    "isolated-app",
    "web+",
    // IANA-registered protocols (not an app's callback)
    "ftp",
    "ftps",
    "sftp",
    "ws",
    "wss",
    "mailto",
    "tel",
    "sms",
    "news",
    "nntp",
    "gopher",
    "telnet",
    "ldap",
    "ldaps",
    "imap",
    "pop",
    "smtp",
    "ssh",
    "irc",
    "ircs",
    "xmpp",
    "sip",
    "sips",
    "rtsp",
    "urn",
    "tag",
    "geo",
    "dns",
    "nfs",
    "smb",
    "cid",
    "mid",
    "dav",
    "webcal",
    "magnet",
    "ipfs",
    "ipns",
    "git",
    "svn",
    "market",
    "itms",
    "itms-apps",
  ].map((s) => `${s}:`),
);

/** Families of browser- and OS-internal schemes, by prefix or suffix. */
const refusedFamily = (protocol: string) => /^(chrome|moz|ms|edge|opera|safari|webkit)-|^web\+|-extension:$/.test(protocol);

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
  if (REFUSED_SCHEMES.has(url.protocol) || refusedFamily(url.protocol)) return "must not use this scheme";
  // RFC 8252 §7.1 private-use scheme (cursor://…, vscode://…, com.example.app:/cb).
  return null;
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
