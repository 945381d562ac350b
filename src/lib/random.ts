/**
 * The one source of randomness and of identifiers: secrets (keys, tokens, codes) are random bytes
 * encoded here, identifiers are a type prefix plus a ULID, digests are SHA-256 hex.
 */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";
import { monotonicFactory } from "ulid";

export function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  return bytes;
}

/** A secret of `bytes` random bytes, base32 lower-case (no padding): URL, header and cookie safe. */
export function randomSecret(bytes = 32): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(bytes));
}

/** Lower-case hex SHA-256 of a UTF-8 string: how every secret is stored. */
export function sha256Hex(value: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(value)));
}

const nextUlid = monotonicFactory();

export type IdPrefix =
  | "org"
  | "usr"
  | "act"
  | "con"
  | "hof"
  | "ins"
  | "brf"
  | "std"
  | "run"
  | "sug"
  | "dna"
  | "alr"
  | "whk"
  | "evt"
  | "dlv"
  | "grt"
  | "req";

/** `act_01JD…`: a type prefix and a ULID (time-ordered, so ids sort newest last). */
export function newId(prefix: IdPrefix, nowMs: number): string {
  return `${prefix}_${nextUlid(nowMs)}`;
}
