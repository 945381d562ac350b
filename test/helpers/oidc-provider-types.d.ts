// The few parts of oidc-provider (no bundled types) that test/helpers/oidc-provider.ts uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Interaction {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
  }
  class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: Record<string, unknown>,
    ): Promise<void>;
  }
}
