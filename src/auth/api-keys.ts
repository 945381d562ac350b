/** API keys (src/docs/notes/access.md#credentials): `crew_` + 32 random bytes in lower-case base32; only SHA-256 of the whole key is stored. */
import { randomSecret, sha256Hex } from "../lib/random.ts";

export const API_KEY_PREFIX = "crew_";

export function generateApiKey(): { key: string; hash: string } {
  const key = `${API_KEY_PREFIX}${randomSecret(32)}`;
  return { key, hash: sha256Hex(key) };
}

export const isApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);
