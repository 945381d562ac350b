/**
 * The security headers of every page Crew renders (HTML, and the redirects between pages), set
 * by Hono's own secure-headers middleware. Only the headers Crew has always sent are switched on:
 * CSP, nosniff, X-Frame-Options DENY, Referrer-Policy same-origin, COOP same-origin. No HSTS: TLS
 * is the reverse proxy's business and BASE_URL may be plain http on a laptop
 * (src/docs/notes/web-plumbing.md). A page that needs its own value (the consent page's
 * form-action, a one-click link's no-referrer) sets it, and it is kept (overwrite off).
 * Machine responses (JSON, text, the static files) are left alone.
 */
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../deps.ts";

/** Only same-origin resources, no inline script or style, no framing, forms post only to Crew. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The same policy as one header value, for a page that adjusts one directive of it. */
export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([name, sources]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(" ")}`)
  .join("; ");

const secure = secureHeaders({
  contentSecurityPolicy: CSP_DIRECTIVES,
  xContentTypeOptions: "nosniff",
  xFrameOptions: "DENY",
  referrerPolicy: "same-origin",
  crossOriginOpenerPolicy: "same-origin",
  crossOriginResourcePolicy: false,
  crossOriginEmbedderPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
  overwrite: false,
});

const isPage = (res: Response) =>
  (res.headers.get("content-type") ?? "").startsWith("text/html") || (res.status >= 300 && res.status < 400 && res.headers.has("location"));

/** Runs after the handler (and the error page) and adds the headers to pages only. */
export const pageSecurityHeaders: MiddlewareHandler<AppEnv> = async function pageSecurityHeaders(c, next) {
  await next();
  if (isPage(c.res)) await secure(c, async () => {});
};
