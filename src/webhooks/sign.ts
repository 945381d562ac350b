/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
 * random bytes; each attempt is signed as HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}`
 * by the reference implementation (`standardwebhooks`), so any receiver using a Standard Webhooks
 * library verifies it unchanged.
 */
import { encodeBase64 } from "@oslojs/encoding";
import { Webhook } from "standardwebhooks";
import { randomBytes, timingSafeEqual } from "../lib/random.ts";

/** 24 random bytes (192 bits), inside the 24–64 the specification recommends. */
export function newWebhookSecret(): string {
  return `whsec_${encodeBase64(randomBytes(24))}`;
}

/**
 * The headers of one delivery attempt. The id is the event's (the same on every retry, so receivers
 * can drop duplicates); the timestamp is the attempt's, so a receiver's replay window holds on retries.
 */
export function signedHeaders(secret: string, eventId: string, attemptAtMs: number, body: string): Record<string, string> {
  const timestamp = new Date(Math.floor(attemptAtMs / 1000) * 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Crew-Webhooks/1.0",
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp.getTime() / 1000),
    "webhook-signature": new Webhook(secret).sign(eventId, timestamp, body),
  };
}

/** How old a signed request may be (the Standard Webhooks reference's tolerance), either way. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Whether a received request is signed with `secret` (Standard Webhooks: `v1,<base64 HMAC>` of
 * `${webhook-id}.${webhook-timestamp}.${body}`, one of the space-separated signatures), within
 * SIGNATURE_TOLERANCE_MS of `now` — Crew's clock, so the window is testable. The signature is
 * computed by the reference implementation and compared in constant time.
 */
export function verifySignature(
  secret: string,
  headers: { id: string | undefined; timestamp: string | undefined; signature: string | undefined },
  body: string,
  now: number,
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  const at = Number(timestamp) * 1000;
  if (Math.abs(now - at) > SIGNATURE_TOLERANCE_MS) return false;
  let expected: string;
  try {
    expected = new Webhook(secret).sign(id, new Date(at), body);
  } catch {
    return false;
  }
  return signature.split(" ").some((given) => timingSafeEqual(given, expected));
}
