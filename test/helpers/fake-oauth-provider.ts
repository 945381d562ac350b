/**
 * The OAuth half of the fake Google and Microsoft servers (test/helpers/fake-google.ts,
 * fake-microsoft.ts): their real servers are outside this machine's reach, so a loopback server
 * follows the public shapes — an OpenID discovery document, an authorization endpoint that shows a
 * consent form (walked over HTTP like a browser), a token endpoint that checks the client secret,
 * the redirect URI and the PKCE verifier (RFC 7636 S256) and refreshes, a revocation endpoint
 * (RFC 7009, Google only), and RS256-signed ID tokens with their JWKS. Every authorization
 * request and token call is recorded for the tests to assert on.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthorizeRequest {
  params: Record<string, string>;
  scopes: string[];
}

export interface TokenCall {
  grant: string;
  params: Record<string, string>;
  /** How the client authenticated. */
  auth: "basic" | "post" | "none";
  status: number;
}

export interface FakeAccount {
  sub: string;
  email: string;
}

export interface FakeOAuthOptions {
  /** The issuer path under the server's origin: "" for Google, "/organizations/v2.0" for Microsoft. */
  issuerPath: string;
  authorizePath: string;
  tokenPath: string;
  revokePath: string | null;
  clientId: string;
  clientSecret: string;
  account: FakeAccount;
  /** Extra routes (the provider's REST API): true when handled. */
  api: (req: IncomingMessage, res: ServerResponse, url: URL, body: string, token: string | null) => boolean | Promise<boolean>;
}

export interface FakeOAuth {
  url: string;
  issuer: string;
  authorizations: AuthorizeRequest[];
  tokenCalls: TokenCall[];
  revoked: string[];
  /** Access tokens the API accepts (issued, not expired by `expireAccessTokens`). */
  validAccessTokens: Set<string>;
  /** Refresh tokens refused from now on with invalid_grant (as after a person revokes Crew's access). */
  revokeRefreshTokens(): void;
  expireAccessTokens(): void;
  /** Scopes the consent grants; default those asked for. */
  grantScopes: string[] | null;
  close(): Promise<void>;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

/** What both fake providers add to the OAuth half: their API's mailbox, calendar and failures. */
export interface FakeProvider<Message> extends FakeOAuth {
  /** Env for Crew pointing here (GOOGLE_* or MICROSOFT_*). */
  env: Record<string, string>;
  /** Adds an inbox message; its provider id. */
  deliver(message: Message): string;
  /** Busy intervals (freeBusy / getSchedule) and the events created or listed. */
  busy: { start: string; end: string }[];
  events: Record<string, any>[];
  /** Every API request: method, path and query. */
  apiCalls: { method: string; path: string; query: Record<string, string> }[];
  /** The next `count` API calls answer `status` (with Retry-After when given). */
  failNext(status: number, count?: number, retryAfter?: string): void;
}

/** The failures failNext queues, taken one per API call. */
export function failureQueue() {
  const queue: { status: number; retryAfter?: string }[] = [];
  return {
    next: () => queue.shift(),
    add(status: number, count = 1, retryAfter?: string) {
      for (let i = 0; i < count; i++) queue.push({ status, ...(retryAfter ? { retryAfter } : {}) });
    },
  };
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
};

export async function startFakeOAuth(options: FakeOAuthOptions): Promise<FakeOAuth> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: "jwk" }), kid: "fake-1", alg: "RS256", use: "sig" };
  const codes = new Map<string, { params: Record<string, string>; scopes: string[] }>();
  const refresh = new Map<string, string[]>();
  let refreshRevoked = false;
  let counter = 0;
  const fake = {
    authorizations: [] as AuthorizeRequest[],
    tokenCalls: [] as TokenCall[],
    revoked: [] as string[],
    validAccessTokens: new Set<string>(),
    grantScopes: null as string[] | null,
  } as FakeOAuth;

  const idToken = (aud: string, nonce: string | undefined) => {
    const now = Math.floor(Date.now() / 1000);
    const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid: "fake-1" }));
    const claims = b64url(
      JSON.stringify({
        iss: fake.issuer,
        aud,
        sub: options.account.sub,
        email: options.account.email,
        email_verified: true,
        iat: now,
        exp: now + 3600,
        ...(nonce ? { nonce } : {}),
      }),
    );
    const signature = sign("RSA-SHA256", Buffer.from(`${header}.${claims}`), privateKey);
    return `${header}.${claims}.${b64url(signature)}`;
  };

  const tokens = (scopes: string[], withRefresh: string | null, aud: string, nonce?: string) => {
    const access = `at-${++counter}-${randomBytes(6).toString("hex")}`;
    fake.validAccessTokens.add(access);
    const body: Record<string, unknown> = { access_token: access, token_type: "Bearer", expires_in: 3600, scope: scopes.join(" ") };
    if (withRefresh) body.refresh_token = withRefresh;
    if (scopes.includes("openid")) body.id_token = idToken(aud, nonce);
    return body;
  };

  const clientAuth = (req: IncomingMessage, params: Record<string, string>): TokenCall["auth"] | null => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (basic) {
      const [id, secret] = Buffer.from(basic, "base64").toString().split(":").map(decodeURIComponent);
      return id === options.clientId && secret === options.clientSecret ? "basic" : null;
    }
    if (params.client_secret) return params.client_id === options.clientId && params.client_secret === options.clientSecret ? "post" : null;
    return null;
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const url = new URL(req.url ?? "/", fake.url);
      const path = url.pathname;
      try {
        if (path === `${options.issuerPath}/.well-known/openid-configuration`) {
          return sendJson(res, 200, {
            issuer: fake.issuer,
            authorization_endpoint: `${fake.url}${options.authorizePath}`,
            token_endpoint: `${fake.url}${options.tokenPath}`,
            ...(options.revokePath ? { revocation_endpoint: `${fake.url}${options.revokePath}` } : {}),
            jwks_uri: `${fake.url}/jwks`,
            response_types_supported: ["code"],
            subject_types_supported: ["public"],
            id_token_signing_alg_values_supported: ["RS256"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
          });
        }
        if (path === "/jwks") return sendJson(res, 200, { keys: [jwk] });
        if (path === options.authorizePath && req.method === "GET") {
          const params = Object.fromEntries(url.searchParams);
          fake.authorizations.push({ params, scopes: (params.scope ?? "").split(" ").filter(Boolean) });
          const hidden = Object.entries(params)
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/"/g, "&quot;")}">`)
            .join("");
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          return res.end(
            `<!doctype html><title>Consent</title><form method="post" action="${options.authorizePath}/consent">${hidden}<p>Crew wants: ${params.scope}</p><button name="decision" value="allow">Allow</button><button name="decision" value="deny">Deny</button></form>`,
          );
        }
        if (path === `${options.authorizePath}/consent` && req.method === "POST") {
          const params = Object.fromEntries(new URLSearchParams(body));
          const redirect = new URL(params.redirect_uri ?? "");
          if (params.decision !== "allow") {
            redirect.searchParams.set("error", "access_denied");
          } else {
            const code = `code-${++counter}`;
            const scopes = fake.grantScopes ?? (params.scope ?? "").split(" ").filter(Boolean);
            codes.set(code, { params, scopes });
            redirect.searchParams.set("code", code);
          }
          if (params.state) redirect.searchParams.set("state", params.state);
          res.writeHead(302, { location: redirect.href });
          return res.end();
        }
        if (path === options.tokenPath && req.method === "POST") {
          const params = Object.fromEntries(new URLSearchParams(body));
          const auth = clientAuth(req, params);
          const record = (status: number) => fake.tokenCalls.push({ grant: params.grant_type ?? "", params, auth: auth ?? "none", status });
          if (!auth) {
            record(401);
            return sendJson(res, 401, { error: "invalid_client" });
          }
          if (params.grant_type === "authorization_code") {
            const found = codes.get(params.code ?? "");
            codes.delete(params.code ?? "");
            const challenge =
              found &&
              b64url(
                createHash("sha256")
                  .update(params.code_verifier ?? "")
                  .digest(),
              );
            if (
              !found ||
              found.params.redirect_uri !== params.redirect_uri ||
              found.params.code_challenge_method !== "S256" ||
              challenge !== found.params.code_challenge
            ) {
              record(400);
              return sendJson(res, 400, {
                error: "invalid_grant",
                error_description: "code, redirect_uri or code_verifier does not match",
              });
            }
            const refreshToken = `rt-${++counter}-${randomBytes(6).toString("hex")}`;
            refresh.set(refreshToken, found.scopes);
            record(200);
            return sendJson(res, 200, tokens(found.scopes, refreshToken, options.clientId, found.params.nonce));
          }
          if (params.grant_type === "refresh_token") {
            const scopes = refresh.get(params.refresh_token ?? "");
            if (!scopes || refreshRevoked || fake.revoked.includes(params.refresh_token ?? "")) {
              record(400);
              return sendJson(res, 400, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
            }
            record(200);
            return sendJson(
              res,
              200,
              tokens(
                scopes.filter((s) => s !== "openid"),
                null,
                options.clientId,
              ),
            );
          }
          record(400);
          return sendJson(res, 400, { error: "unsupported_grant_type" });
        }
        if (options.revokePath && path === options.revokePath && req.method === "POST") {
          const params = Object.fromEntries(new URLSearchParams(body));
          fake.revoked.push(params.token ?? "");
          res.writeHead(200);
          return res.end();
        }
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? null;
        if (await options.api(req, res, url, body, bearer)) return;
        sendJson(res, 404, { error: { code: 404, message: `no route ${req.method} ${path}` } });
      } catch (error) {
        sendJson(res, 500, { error: String(error) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.issuer = `${fake.url}${options.issuerPath}`;
  fake.revokeRefreshTokens = () => {
    refreshRevoked = true;
  };
  fake.expireAccessTokens = () => fake.validAccessTokens.clear();
  fake.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return fake;
}
