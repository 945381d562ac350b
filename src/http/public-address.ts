/**
 * One public address (src/docs/notes/web-app.md#one-public-address): a page request that reaches the server under another host or
 * origin than BASE_URL's — `127.0.0.1:3000` while BASE_URL is `http://localhost:3000` — is
 * redirected (GET, HEAD) to the same path on BASE_URL, or refused with a page linking there (other
 * methods). Otherwise the browser would hold a session cookie for the wrong host, and every form
 * would loop on the cross-site refusal. API, MCP and OAuth clients (no HTML asked, no form sent)
 * are left alone: they authenticate with tokens and never loop.
 *
 * Behind a proxy the Host header may be the proxy's upstream name: a request forwarded by a
 * TRUSTED_PROXY is judged by its X-Forwarded-Host/-Proto, and one that carries forwarding headers
 * from anyone else is not judged at all (a redirect there could loop forever).
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import type { AppEnv } from "../deps.ts";
import { messagePage } from "../html/layout.ts";
import { fromTrustedProxy } from "./client-address.ts";

const FORWARDING = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "via"];

function isPageRequest(method: string, accept: string, contentType: string): boolean {
  if (method === "GET" || method === "HEAD") return accept.includes("text/html");
  return (
    accept.includes("text/html") ||
    contentType.startsWith("application/x-www-form-urlencoded") ||
    contentType.startsWith("multipart/form-data")
  );
}

export const onePublicAddress = (config: Pick<Config, "baseUrl" | "trustedProxies">): MiddlewareHandler<AppEnv> =>
  async function onePublicAddressMiddleware(c, next) {
    const method = c.req.method;
    if (!isPageRequest(method, c.req.header("accept") ?? "", c.req.header("content-type") ?? "")) return next();
    const base = new URL(config.baseUrl);
    const url = new URL(c.req.url);
    let origin = url.origin;
    const forwarded = FORWARDING.some((h) => c.req.header(h) !== undefined);
    if (forwarded) {
      const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
      if (!fromTrustedProxy(c, config) || !host) return next();
      const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim() || base.protocol.replace(":", "");
      origin = `${proto}://${host}`;
    }
    if (origin === base.origin) return next();
    const target = `${config.baseUrl}${url.pathname}${url.search}`;
    if (method === "GET" || method === "HEAD") return c.redirect(target, 307);
    return messagePage(
      c,
      421,
      "Wrong address",
      `This page was opened at ${origin}, but Crew's address is ${base.origin}: a form sent from another address is refused. Open Crew at its address and try again.`,
      { href: target, label: `Go to ${base.host}` },
    );
  };
