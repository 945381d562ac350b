/**
 * The authorization server's routes (src/docs/notes/oauth.md). The JSON endpoints answer in the OAuth error
 * format and with CORS for any origin; the pages (authorize, connected apps) use the session
 * cookie and never answer CORS.
 */
import { type Context, Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { anyOriginCors, OAUTH_CORS } from "../http/cors.ts";
import { methodNotAllowed } from "../http/middleware.ts";
import { isMcpViewPath } from "../lib/mcp-paths.ts";
import { authorizeGet, authorizePost } from "./authorize.ts";
import { connectedAppsRoutes } from "./connected-apps.ts";
import { OAuthError, renderOAuthError } from "./errors.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata.ts";
import { register } from "./register.ts";
import { revoke } from "./revoke.ts";
import { token } from "./token.ts";

type Handler = (c: Context<AppEnv>) => Promise<Response>;

/** The one place OAuthError becomes a response; the detail is logged, never sent. */
function oauthEndpoint(deps: AppDeps, handler: Handler): Handler {
  return async function oauthEndpointHandler(c) {
    try {
      return await handler(c);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      deps.log.info("oauth request refused", {
        request_id: c.get("requestId"),
        path: c.req.path,
        error: error.code,
        detail: error.detail,
      });
      return renderOAuthError(error);
    }
  };
}

export function oauthRoutes(deps: AppDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const { config } = deps;

  /** One public JSON endpoint: CORS (preflight included), the handler, 405 for other methods. */
  const endpoint = (paths: string[], method: "GET" | "POST", handler: Handler) => {
    for (const path of paths) {
      router.use(path, anyOriginCors({ methods: [method], ...OAUTH_CORS }));
      router.on(method, path, oauthEndpoint(deps, handler));
      router.all(path, methodNotAllowed([method]));
    }
  };

  endpoint(["/.well-known/oauth-authorization-server"], "GET", async (c) => c.json(authorizationServerMetadata(config)));
  endpoint(["/.well-known/oauth-protected-resource"], "GET", async (c) => c.json(protectedResourceMetadata(config, config.baseUrl)));
  endpoint(["/.well-known/oauth-protected-resource/mcp"], "GET", async (c) =>
    c.json(protectedResourceMetadata(config, `${config.baseUrl}/mcp`)),
  );
  // For a client configured with `{base}/mcp/`: VS Code requires the document's `resource` to equal
  // the URL it connects to exactly (RFC 9728 §3.3), so `/mcp/`'s challenge points here.
  endpoint(["/.well-known/oauth-protected-resource/mcp/"], "GET", async (c) =>
    c.json(protectedResourceMetadata(config, `${config.baseUrl}/mcp/`)),
  );
  // The same for the read-only and toolset endpoints (lib/mcp-paths.ts), each its own resource URL.
  endpoint(
    [
      "/.well-known/oauth-protected-resource/mcp/readonly",
      "/.well-known/oauth-protected-resource/mcp/x/:toolset",
      "/.well-known/oauth-protected-resource/mcp/x/:toolset/readonly",
    ],
    "GET",
    async (c) => {
      const path = c.req.path.slice("/.well-known/oauth-protected-resource".length);
      if (!isMcpViewPath(path)) throw new ApiError(404, "not_found", "No such protected resource.");
      return c.json(protectedResourceMetadata(config, `${config.baseUrl}${path}`));
    },
  );
  // The aliases serve clients that skip metadata and guess the paths (src/docs/notes/oauth.md).
  endpoint(["/oauth/register", "/register"], "POST", (c) => register(deps, c));
  endpoint(["/oauth/token", "/token"], "POST", (c) => token(deps, c));
  endpoint(["/oauth/revoke"], "POST", (c) => revoke(deps, c));

  for (const path of ["/oauth/authorize", "/authorize"]) {
    router.get(path, (c) => authorizeGet(deps, c));
    router.post(path, (c) => authorizePost(deps, c));
    router.all(path, methodNotAllowed(["GET", "POST"]));
  }

  router.route("/", connectedAppsRoutes(deps));
  return router;
}
