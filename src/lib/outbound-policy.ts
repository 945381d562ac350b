/**
 * The shape of the outbound request policy every layer receives in its dependencies; the checks
 * themselves live in src/integrations/outbound.ts, and the platform parts (DNS, the pinned
 * connector) are injected by the entry (src/outbound-connector.ts).
 */
/** One HTTP exchange to `address`, for `url` (Host header and TLS server name from the URL). Never follows redirects. */
export type OutboundConnector = (request: {
  url: URL;
  address: string;
  method: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | null;
  signal: AbortSignal;
}) => Promise<Response>;

export interface OutboundPolicy {
  /** config.allowPrivateTargets (ALLOW_PRIVATE_TARGETS, alias WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** DNS lookup, injected (boot passes node:dns; tests pass a fake). */
  resolve(host: string): Promise<string[]>;
  /** The runtime's pinned HTTP(S) client, injected by boot. */
  connect?: OutboundConnector;
}
