import { mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import S3rver from 's3rver';

/** The credentials s3rver accepts: fixed, public, development-only (not secrets). */
export const EMBEDDED_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface EmbeddedS3 {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * An S3-protocol server on loopback storing objects under `directory` (s3rver). Used when no
 * S3_ENDPOINT is configured (local runs) and by tests; production uses real S3 or MinIO. It does
 * not verify request signatures, so it must never stand in for an authorisation test.
 */
export async function startEmbeddedS3(options: { directory: string; port: number; host?: string }): Promise<EmbeddedS3> {
  mkdirSync(options.directory, { recursive: true });
  const server = new S3rver({ address: options.host ?? '127.0.0.1', port: options.port, directory: options.directory, silent: true });
  keepDirectoriesOnDelete(server);
  const { address, port } = await server.run();
  return { endpoint: `http://${address}:${port}`, close: () => server.close() };
}

/**
 * s3rver removes a key's directory (`assets/`) once a delete leaves it empty, racing a concurrent
 * upload that has just created it: the upload's file then fails to open, and s3rver leaves that
 * error unhandled, which ends the whole media process (seen under bench load, when an input
 * image was deleted while others were uploaded). Deletes here remove the object's files only;
 * an empty directory costs nothing.
 */
function keepDirectoriesOnDelete(server: S3rver): void {
  const store = server.store;
  store.deleteObject = async (bucket, key) => {
    const removals = (['object', 'object.md5', 'metadata.json'] as const).map((resource) =>
      unlink(store.getResourcePath(bucket, key, resource)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      }),
    );
    await Promise.all(removals);
  };
}
