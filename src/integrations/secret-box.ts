/**
 * Integration credentials at rest (src/docs/notes/calendar.md): AES-256-GCM with Web Crypto, under a key derived
 * from CREW_SECRET with HKDF-SHA256, a random 12-byte IV per encryption. Stored as versioned text
 * `v1.<iv>.<ciphertext+tag>` (base64url), so the scheme can change later without guessing. A
 * purpose (integration kind and user id) is bound as additional data: a ciphertext copied into
 * another user's row does not decrypt there.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { Config } from "../config.ts";
import { randomBytes } from "../lib/random.ts";

/**
 * The key everything at rest is sealed under: CREW_SECRET. boot() always sets it (the variable, or
 * the secret it generates beside a database file), so an app built without it is a wiring bug,
 * said with what could not be sealed.
 */
export function sealingKey(config: Pick<Config, "secret">, what: string): string {
  if (!config.secret) throw new Error(`CREW_SECRET is not configured: ${what} cannot be sealed`);
  return config.secret;
}

const VERSION = "v1";
const encoder = new TextEncoder();

/** Derived keys by secret: HKDF runs once per process, not per request. */
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = (async () => {
      const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: encoder.encode("crew/integrations"), info: encoder.encode(`crew credentials ${VERSION}`) },
        material,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    keys.set(secret, key);
  }
  return key;
}

export class SecretBoxError extends Error {}

/** Encrypts `plaintext`; `purpose` (e.g. "calendar:usr_…") must be given again to decrypt. */
export async function seal(secret: string, plaintext: string, purpose: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(purpose) },
    await keyFor(secret),
    encoder.encode(plaintext),
  );
  return `${VERSION}.${encodeBase64urlNoPadding(iv)}.${encodeBase64urlNoPadding(new Uint8Array(sealed))}`;
}

/** The plaintext, or SecretBoxError when the text is not ours, was altered, or CREW_SECRET changed. */
export async function open(secret: string, sealed: string, purpose: string): Promise<string> {
  const [version, ivText, dataText, extra] = sealed.split(".");
  if (version !== VERSION || !ivText || !dataText || extra !== undefined) throw new SecretBoxError("unknown sealed format");
  try {
    const iv = new Uint8Array(decodeBase64urlIgnorePadding(ivText));
    const data = new Uint8Array(decodeBase64urlIgnorePadding(dataText));
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(purpose) }, await keyFor(secret), data);
    return new TextDecoder().decode(plain);
  } catch {
    throw new SecretBoxError("cannot decrypt: altered, or sealed under another CREW_SECRET");
  }
}
