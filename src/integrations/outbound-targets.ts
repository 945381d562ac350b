/**
 * Where an outbound target — a webhook, a Teams channel — may point (src/docs/notes/webhooks.md),
 * beside the outbound policy whose rules it applies: http(s) only, and — unless ALLOW_PRIVATE_TARGETS is on —
 * never at loopback, private, link-local or otherwise non-public addresses, so a subscription
 * cannot make Crew probe its own network. The address rules are the outbound policy's (src/docs/notes/outbound-requests.md,
 * src/integrations/outbound.ts): checked here when a subscription is created, and by
 * outboundFetch before every delivery (the flag may have been turned off, a name may resolve anew).
 */
import { refusedWithoutLookup } from "./outbound.ts";

export const MAX_URL_LENGTH = 2000;

/** Why `raw` is not a usable target URL at all (scheme, credentials, fragment, length), or null. */
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
  // A fragment is never sent (RFC 9110 §7.1): two addresses differing by one are the same target.
  if (raw.includes("#")) return "Must not contain a #fragment.";
  return null;
}

/** The one message users get for a target that is refused or unreachable (src/docs/notes/outbound-requests.md: no port scanning through error texts). */
export const UNREACHABLE_TARGET =
  "Could not reach the target: no answer, or not a public address (loopback, private and link-local addresses are refused unless ALLOW_PRIVATE_TARGETS is on).";

/**
 * Why Crew will not send to this URL's host under the current setting, or null: what the outbound
 * policy (src/integrations/outbound.ts) refuses without a DNS lookup. A public name that resolves to
 * a private address is refused at delivery time, when the policy resolves it.
 */
export function privateTargetProblem(raw: string, allowPrivate: boolean): string | null {
  let host: string;
  try {
    host = new URL(raw).hostname;
  } catch {
    return "Must be an absolute http:// or https:// URL.";
  }
  return refusedWithoutLookup(host, allowPrivate)
    ? "Points at a loopback, private or link-local address; Crew only sends webhooks to public addresses (ALLOW_PRIVATE_TARGETS is off)."
    : null;
}
