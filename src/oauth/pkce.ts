/** PKCE (RFC 7636) with S256 only, as OAuth 2.1 requires. Pure, no I/O. */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { timingSafeEqual } from "../lib/random.ts";

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** BASE64URL(SHA-256(verifier)): 32 bytes, 43 characters without padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isValidCodeVerifier = (verifier: string) => VERIFIER.test(verifier);
export const isValidS256Challenge = (challenge: string) => S256_CHALLENGE.test(challenge);

export function s256Challenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}

export function verifyS256(verifier: string, challenge: string): boolean {
  return isValidCodeVerifier(verifier) && timingSafeEqual(s256Challenge(verifier), challenge);
}
