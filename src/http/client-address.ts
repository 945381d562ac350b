/**
 * Who is asking, as an address, for per-client limits (sign-in, client registration). The socket
 * peer, from whichever server runs us (duck-typed: @hono/node-server puts the socket in
 * `env.incoming`, Deno and Bun pass connection info). X-Forwarded-For is believed only when the
 * peer is a configured TRUSTED_PROXY — anyone else can set it to anything.
 */
import type { Context } from "hono";
import type { Config } from "../config.ts";

/** The socket address of the peer, or "unknown". */
export function peerAddress(c: Context): string {
  const env = c.env as
    | {
        incoming?: { socket?: { remoteAddress?: string } };
        remoteAddr?: { hostname?: string };
        requestIP?: (r: Request) => { address?: string } | null;
      }
    | undefined;
  try {
    return env?.incoming?.socket?.remoteAddress ?? env?.remoteAddr?.hostname ?? env?.requestIP?.(c.req.raw)?.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** "::ffff:127.0.0.1" and "127.0.0.1" are one client. */
const plain = (address: string) =>
  address
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1")
    .toLowerCase();

/**
 * The client's address: the peer's, unless the peer is a trusted proxy; then the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy (entries further left were written by
 * whoever sent the request, and prove nothing).
 */
export function clientAddress(c: Context, config: Pick<Config, "trustedProxies">): string {
  const peer = plain(peerAddress(c));
  const trusted = new Set(config.trustedProxies.map(plain));
  if (!trusted.has(peer)) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map(plain).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (!trusted.has(hop)) return hop;
  }
  return peer;
}

/** True when the socket peer is a configured TRUSTED_PROXY (its forwarding headers are believed). */
export function fromTrustedProxy(c: Context, config: Pick<Config, "trustedProxies">): boolean {
  const peer = plain(peerAddress(c));
  return config.trustedProxies.some((p) => plain(p) === peer);
}
