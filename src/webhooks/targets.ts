/**
 * Where a webhook may point (SPEC §9): http(s) only, and — unless WEBHOOK_ALLOW_PRIVATE is on —
 * never at loopback, private, link-local or otherwise non-public addresses, so a subscription
 * cannot make Crew probe its own network. Pure policy, no I/O: the same checks run when a
 * subscription is created and again before every delivery (the flag may have been turned off).
 */

export const MAX_URL_LENGTH = 2000;

/** Why `raw` is not a usable webhook URL at all (scheme, credentials, length), or null. */
export function urlProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `Must be at most ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Must be an absolute http:// or https:// URL.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Must be an http:// or https:// URL.";
  // fetch() refuses URLs with credentials; a receiver that needs them takes a token in the path or query.
  if (url.username || url.password) return "Must not contain a user name or password.";
  return null;
}

/** IPv4 dotted quad → 32-bit number, or null. (URL parsing has already normalised 0x7f.1 and friends.) */
function ipv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

const inV4 = (n: number, base: string, bits: number) => {
  const b = ipv4(base) ?? 0;
  const size = 2 ** (32 - bits);
  return Math.floor(n / size) === Math.floor(b / size);
};

/** Non-public IPv4 ranges: "this network", private, CGNAT, loopback, link-local, multicast, reserved. */
const V4_BLOCKED: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const blockedV4 = (n: number) => V4_BLOCKED.some(([base, bits]) => inV4(n, base, bits));

/** IPv6 text → eight 16-bit groups, or null. Accepts the compressed form the URL parser emits. */
function ipv6(host: string): number[] | null {
  if (!host.includes(":")) return null;
  let text = host;
  // A trailing dotted quad (::ffff:1.2.3.4), as a resolver may return it.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad?.[1]) {
    const n = ipv4(quad[1]);
    if (n === null) return null;
    text = `${text.slice(0, -quad[1].length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) =>
    s === "" ? [] : s.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const head = parse(halves[0] ?? "");
  const tail = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return groups.some(Number.isNaN) ? null : groups;
}

function blockedV6(g: number[]): boolean {
  const [a = 0] = g;
  const zeroPrefix = g.slice(0, 5).every((x) => x === 0);
  if (zeroPrefix && g[5] === 0 && g[6] === 0 && (g[7] === 0 || g[7] === 1)) return true; // :: and ::1
  if (zeroPrefix && g[5] === 0xffff) return blockedV4((g[6] ?? 0) * 65536 + (g[7] ?? 0)); // IPv4-mapped
  if ((a & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((a & 0xffc0) === 0xfe80 || (a & 0xffc0) === 0xfec0) return true; // fe80::/10 link-local, fec0::/10 site-local
  return (a & 0xff00) === 0xff00; // multicast
}

/** True when an IP address (v4 or v6, brackets allowed) is not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const host = address.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const v4 = ipv4(host);
  if (v4 !== null) return blockedV4(v4);
  const v6 = ipv6(host.split("%")[0] ?? host);
  return v6 !== null && blockedV6(v6);
}

/** Host names that always mean this machine (RFC 6761), with or without the root dot. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Why Crew will not send to this URL's host under the current setting, or null. Catches names and
 * literal addresses; a public name that resolves to a private address is caught at delivery time
 * only when a resolver is available (see deliver.ts).
 */
export function privateTargetProblem(raw: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let host: string;
  try {
    host = new URL(raw).hostname;
  } catch {
    return "Must be an absolute http:// or https:// URL.";
  }
  if (isLocalName(host) || isPrivateAddress(host)) {
    return "Points at a loopback, private or link-local address; Crew only sends webhooks to public addresses (WEBHOOK_ALLOW_PRIVATE is off).";
  }
  return null;
}
