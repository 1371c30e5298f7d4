import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { EMBEDDED_S3_CREDENTIALS, startEmbeddedS3, type EmbeddedS3 } from './embedded-s3.js';

describe('the embedded S3-protocol store', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'atelier-embedded-s3-'));
  let store: EmbeddedS3;
  let client: S3Client;

  beforeAll(async () => {
    store = await startEmbeddedS3({ directory, port: 0 });
    client = new S3Client({ endpoint: store.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: EMBEDDED_S3_CREDENTIALS });
    await client.send(new CreateBucketCommand({ Bucket: 'race' }));
  });

  afterAll(async () => {
    client.destroy();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('takes uploads while the only other object of their folder is deleted (s3rver removed the folder under them, and its error ended the process)', async () => {
    const put = (key: string) => client.send(new PutObjectCommand({ Bucket: 'race', Key: key, Body: Buffer.alloc(64 * 1024, 1) }));
    await put('assets/0');
    for (let i = 1; i <= 100; i += 1) {
      // The folder holds one object; it is deleted while the next is written.
      const [stored] = await Promise.all([
        put(`assets/${i}`),
        client.send(new DeleteObjectCommand({ Bucket: 'race', Key: `assets/${i - 1}` })),
      ]);
      expect(stored.$metadata.httpStatusCode).toBe(200);
    }
  });
});
