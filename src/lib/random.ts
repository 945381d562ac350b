/**
 * The one source of randomness and of identifiers: secrets (keys, tokens, codes) are random bytes
 * encoded here, identifiers are a type prefix plus a ULID, digests are SHA-256 hex.
 */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";

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

/** Crockford's base32, the ULID alphabet (https://github.com/ulid/spec). */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/**
 * A monotonic ULID generator: 48-bit time, 80 random bits drawn with one getRandomValues (the
 * `ulid` package draws once per character: 25–50 µs an id, src/docs/notes/storage-and-speed.md#identifiers).
 * Within one millisecond the random part is incremented instead, so the ids of one generator sort
 * in creation order (ULID spec, monotonicity). Each generator keeps its own last time.
 */
export function monotonicUlid(): (nowMs: number) => string {
  let lastTime = -1;
  /** The 80 random bits of the last id, as 16 base-32 digits (values 0–31), most significant first. */
  const lastRandom = new Uint8Array(16);
  return (nowMs) => {
    if (nowMs > lastTime) {
      lastTime = nowMs;
      const bytes = randomBytes(10);
      // 80 bits → 16 digits of 5 bits.
      let acc = 0;
      let bits = 0;
      let digit = 0;
      for (const byte of bytes) {
        acc = (acc << 8) | byte;
        bits += 8;
        while (bits >= 5) {
          bits -= 5;
          lastRandom[digit++] = (acc >> bits) & 31;
        }
        acc &= (1 << bits) - 1;
      }
    } else {
      // Same (or an earlier, clock-stepped) millisecond: keep the last time and add one.
      let i = 15;
      while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
      if (i < 0) throw new Error("ULID random part overflowed within one millisecond");
      lastRandom[i] = (lastRandom[i] ?? 0) + 1;
    }
    let time = "";
    let t = lastTime;
    for (let i = 0; i < 10; i++) {
      time = ALPHABET[t % 32] + time;
      t = Math.floor(t / 32);
    }
    let random = "";
    for (const d of lastRandom) random += ALPHABET[d];
    return time + random;
  };
}

/** The process's generator: ids of one process sort in creation order. */
export const ulid = monotonicUlid();

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
  | "tsk"
  | "sug"
  | "dna"
  | "alr"
  | "whk"
  | "evt"
  | "dlv"
  | "grt"
  | "req"
  | "src"
  | "aud"
  | "msg"
  | "evl"
  | "cnn"
  | "rsv"
  | "mst";

/** `act_01JD…`: a type prefix and a ULID (time-ordered, so ids sort newest last). */
export function newId(prefix: IdPrefix, nowMs: number): string {
  return `${prefix}_${ulid(nowMs)}`;
}

/** Constant-time string equality (both sides are public-length digests or tokens). */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
