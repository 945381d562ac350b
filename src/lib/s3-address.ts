/**
 * Off-site backups' addresses and connection (src/docs/notes/operating.md#backups-off-the-machine):
 * `s3://bucket/prefix` URLs, and the S3 connection from the environment (BACKUP_S3_ENDPOINT for
 * S3-compatible stores, the standard AWS_* variables for the region and the keys).
 */

/** A bucket and a key or a key prefix inside it (no leading slash). */
export interface S3Address {
  bucket: string;
  key: string;
}

/** How to reach the store; keys null leaves them to the SDK's own lookup (shared config files, instance roles). */
export interface S3Connection {
  endpoint: string | null;
  region: string;
  keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

// A bucket name as S3 allows it (3–63 characters: lower-case letters, digits, dots and hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses `s3://bucket/key-or-prefix`; null when `value` is not an s3:// URL, an Error naming the fault when it is a bad one. */
export function parseS3Url(value: string): S3Address | Error | null {
  if (!/^s3:\/\//i.test(value)) return null;
  const rest = value.slice("s3://".length);
  const slash = rest.indexOf("/");
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const key = slash === -1 ? "" : rest.slice(slash + 1);
  if (!BUCKET.test(bucket)) return new Error(`${value}: "${bucket}" is not an S3 bucket name`);
  if (key.split("/").some((part, i, all) => part === ".." || (part === "" && i < all.length - 1))) {
    return new Error(`${value}: the key must not hold empty or ".." parts`);
  }
  return { bucket, key };
}

/** A prefix as a folder: empty, or ending in one `/`. */
export const asPrefix = (key: string): string => (key === "" || key.endsWith("/") ? key : `${key}/`);

export const s3Url = (address: S3Address): string => `s3://${address.bucket}/${address.key}`;

/** The connection named by the environment (AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1). */
export function s3ConnectionOf(env: Record<string, string | undefined>): S3Connection | Error {
  const endpoint = (env.BACKUP_S3_ENDPOINT ?? "").trim() || null;
  if (endpoint !== null && !URL.canParse(endpoint))
    return new Error(`BACKUP_S3_ENDPOINT must be a URL such as http://minio.internal:9000, got "${endpoint}"`);
  const region = (env.AWS_REGION ?? "").trim() || (env.AWS_DEFAULT_REGION ?? "").trim() || "us-east-1";
  const accessKeyId = (env.AWS_ACCESS_KEY_ID ?? "").trim();
  const secretAccessKey = (env.AWS_SECRET_ACCESS_KEY ?? "").trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    return new Error("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set together, or neither");
  const sessionToken = (env.AWS_SESSION_TOKEN ?? "").trim();
  const keys = accessKeyId ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null;
  return { endpoint, region, keys };
}
