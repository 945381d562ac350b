/**
 * The runtime half of the outbound policy (src/docs/notes/outbound-requests.md), injected by boot: DNS through node:dns, and
 * an HTTP(S) client that dials the address the policy vetted instead of resolving the name again.
 * The URL's host still goes into the Host header and the TLS server name, so certificates are
 * verified against the name the user gave. node:http/https exist on Node, Deno and Bun.
 */
import { lookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import type { OutboundConnector, OutboundPolicy } from "./lib/outbound-policy.ts";

export async function resolveHost(host: string): Promise<string[]> {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** Statuses whose responses have no body (Fetch standard "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export const pinnedConnector: OutboundConnector = ({ url, address, method, headers, body, signal }) =>
  new Promise<Response>((resolve, reject) => {
    const family = isIP(address) === 6 ? 6 : 4;
    // Every lookup of this request answers with the vetted address: nothing is resolved twice.
    const pinned: LookupFunction = (_host, options, callback) => {
      if (options.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: Object.fromEntries(headers),
        lookup: pinned,
        agent: false,
        signal,
        ...(url.protocol === "https:" && !isIP(hostname) ? { servername: hostname } : {}),
      },
      (res) => {
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          responseHeaders.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        }
        const status = res.statusCode ?? 502;
        const empty = NULL_BODY.has(status) || method === "HEAD";
        if (empty) res.resume();
        const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        resolve(new Response(stream, { status, statusText: res.statusMessage, headers: responseHeaders }));
      },
    );
    request.on("error", reject);
    request.end(body ?? undefined);
  });

/** The policy the server runs with. */
export function outboundPolicy(allowPrivate: boolean): OutboundPolicy {
  return { allowPrivate, resolve: resolveHost, connect: pinnedConnector };
}
