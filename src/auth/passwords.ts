/**
 * Passwords: PBKDF2-HMAC-SHA256 through Web Crypto, 600,000 iterations, 16-byte random salt
 * (src/docs/notes/web-and-accounts.md#passwords, OWASP's figure for PBKDF2-SHA256). Stored as `pbkdf2_sha256$<iterations>$<salt>$<hash>`
 * (base64), so the iteration count can rise later without breaking old hashes.
 */

import { constantTimeEqual } from "@oslojs/crypto/subtle";
import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import * as v from "valibot";
import { createGate, GateFull } from "../lib/gate.ts";
import { randomBytes } from "../lib/random.ts";

const ITERATIONS = 600_000;

/**
 * Hashing is CPU-bound (~0.3 s each): at most 2 at a time per process and 8 waiting, so a flood of
 * sign-ins cannot queue everyone behind it for seconds; beyond that `PasswordHashingBusy` at once.
 */
export const HASHING_AT_ONCE = 2;
export const HASHING_WAITING = 8;
const hashing = createGate(HASHING_AT_ONCE, HASHING_WAITING);

/** Too many passwords being hashed in this process right now: answer 429 and let the client retry. */
export class PasswordHashingBusy extends Error {
  override name = "PasswordHashingBusy";
}

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  try {
    return await hashing.run(() => deriveNow(password, salt, iterations));
  } catch (error) {
    if (error instanceof GateFull) throw new PasswordHashingBusy("password hashing is busy");
    throw error;
  }
}

async function deriveNow(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password.normalize("NFKC")), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, ITERATIONS);
  return `pbkdf2_sha256$${ITERATIONS}$${encodeBase64(salt)}$${encodeBase64(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2_sha256" || !iterations || !salt || !hash) return false;
  const expected = decodeBase64(hash);
  const actual = await derive(password, new Uint8Array(decodeBase64(salt)), Number(iterations));
  return constantTimeEqual(actual, expected);
}

/** A hash that matches no password, compared against when the email is unknown, so both take as long. */
let dummyHash: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(crypto.randomUUID()).catch((error) => {
    dummyHash = null; // busy now: made on a later call
    throw error;
  });
  return dummyHash;
}

/** The password rule, once: every door (setup, reset, users page, CLI) validates with this schema. */
export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 1024;
export const Password = v.pipe(
  v.string("Must be a string."),
  v.minLength(MIN_PASSWORD, `Use at least ${MIN_PASSWORD} characters.`),
  v.maxLength(MAX_PASSWORD, `Use at most ${MAX_PASSWORD} characters.`),
);
