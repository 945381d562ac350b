/**
 * A real OpenID provider on loopback (`oidc-provider`) for the SSO tests. The port is taken first
 * (Crew's configuration needs the issuer), the provider is built once Crew's callback URLs are
 * known. Its login and consent prompts are answered by the test: login as `nextAccount`, consent
 * to what the client asked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claims of each account, by subject. */
  accounts: Map<string, Record<string, unknown>>;
  /** Who signs in at the next login prompt. */
  nextAccount: string;
  /** Builds the provider for these redirect URIs (call once, before the first sign-in). */
  start(redirectUris: string[]): void;
  close(): Promise<void>;
}

/**
 * `claimsAt: "userinfo"` is the provider's default (`conformIdTokenClaims`): with an access token
 * issued, the ID token carries only `sub`, and email, email_verified and groups come from UserInfo.
 */
export async function reserveIdp(options: { claimsAt?: "id_token" | "userinfo" } = {}): Promise<TestIdp> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end("not started");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: TestIdp = {
    issuer,
    clientId: "crew-test",
    clientSecret: "crew-test-client-secret-0123456789abcdef",
    accounts: new Map(),
    nextAccount: "",
    start(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: idp.clientId,
            client_secret: idp.clientSecret,
            redirect_uris: redirectUris,
            grant_types: ["authorization_code"],
            response_types: ["code"],
            token_endpoint_auth_method: "client_secret_post",
          },
        ],
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
        // By default the scope's claims in the ID token itself; "userinfo" keeps them at UserInfo only.
        conformIdTokenClaims: options.claimsAt === "userinfo",
        cookies: { keys: ["test-cookie-key-0123456789"] },
        features: { devInteractions: { enabled: false } },
        // Absolute: the tests' browser resolves relative redirects against Crew.
        interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${issuer}/interaction/${interaction.uid}` },
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
        findAccount: (_ctx: unknown, sub: string) =>
          idp.accounts.has(sub) ? { accountId: sub, claims: () => ({ sub, ...idp.accounts.get(sub) }) } : undefined,
      });
      const callback = provider.callback();
      handler = (req, res) => {
        if (!req.url?.startsWith("/interaction/")) return void callback(req, res);
        void answerPrompt(provider, idp, req, res).catch((error) => res.writeHead(500).end(String(error)));
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return idp;
}

async function answerPrompt(provider: Provider, idp: TestIdp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(req, res, { login: { accountId: idp.nextAccount } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId ?? idp.nextAccount;
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
