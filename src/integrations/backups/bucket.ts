/**
 * Backups off the machine (src/docs/notes/operating.md#backups-off-the-machine): an S3 bucket, or an
 * S3-compatible store (BACKUP_S3_ENDPOINT: MinIO, Garage, Ceph, R2), through `@aws-sdk/client-s3`.
 * Backups are objects named like the local files (`<prefix>crew-<time>.db`), so listing a prefix
 * in name order is listing them oldest first, and retention deletes from the front.
 */
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { S3Connection } from "../../lib/s3-address.ts";

export interface BackupObject {
  key: string;
  bytes: number;
}

export interface Bucket {
  /** Uploads the local file `file` as `key`. */
  upload(file: string, key: string): Promise<void>;
  /** Downloads `key` into the local file `file` (which it creates). */
  download(key: string, file: string): Promise<void>;
  /** The objects under `prefix` whose last name part `isBackup` accepts, in name order. */
  list(prefix: string, isBackup: (name: string) => boolean): Promise<BackupObject[]>;
  remove(keys: string[]): Promise<void>;
  close(): void;
}

/** A bucket error in one line, naming the bucket (the SDK's messages name neither). */
export class BucketError extends Error {}

const oneLine = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split("\n")[0];

export function openBucket(bucket: string, connection: S3Connection): Bucket {
  const client = new S3Client({
    region: connection.region,
    // Checksums only where S3 requires one: S3-compatible stores differ in the newer checksum
    // headers and in aws-chunked uploads, and every backup is checked by its integrity_check.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(connection.endpoint ? { endpoint: connection.endpoint, forcePathStyle: true } : {}),
    ...(connection.keys ? { credentials: connection.keys } : {}),
  });
  const failing = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new BucketError(`s3://${bucket}: ${what} failed (${oneLine(error)})`);
    }
  };
  return {
    upload: (file, key) =>
      failing(`uploading ${key}`, async () => {
        await client.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(file), ContentLength: statSync(file).size }),
        );
      }),
    download: (key, file) =>
      failing(`downloading ${key}`, async () => {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!(answer.Body instanceof Readable)) throw new Error("no body");
        await pipeline(answer.Body, createWriteStream(file, { flags: "wx", mode: 0o600 }));
      }),
    list: (prefix, isBackup) =>
      failing(`listing ${prefix || "the bucket"}`, async () => {
        const found: BackupObject[] = [];
        let token: string | undefined;
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
          for (const o of page.Contents ?? []) {
            const name = o.Key?.slice(prefix.length) ?? "";
            if (o.Key && !name.includes("/") && isBackup(name)) found.push({ key: o.Key, bytes: o.Size ?? 0 });
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
        return found.sort((a, b) => a.key.localeCompare(b.key));
      }),
    remove: (keys) =>
      failing(`deleting ${keys.length} old backups`, async () => {
        // One request per 1,000 keys, S3's limit for a multi-object delete.
        for (let i = 0; i < keys.length; i += 1000) {
          await client.send(
            new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }),
          );
        }
      }),
    close: () => client.destroy(),
  };
}
