/**
 * A local S3-compatible server (`s3rver`, files in a temp folder) on a free loopback port, for the
 * off-site backup tests (src/docs/notes/operating.md#backups-off-the-machine). It accepts the key
 * pair S3RVER / S3RVER. `env` is what points Crew at it.
 */
import S3rver from "s3rver";
import { tempDir } from "./server.ts";

export interface LocalS3 {
  endpoint: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(buckets: string[]): Promise<LocalS3> {
  const folder = tempDir("crew-s3-");
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: folder.dir,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: { BACKUP_S3_ENDPOINT: endpoint, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER", AWS_REGION: "us-east-1" },
    async close() {
      await server.close();
      folder.cleanup();
    },
  };
}
