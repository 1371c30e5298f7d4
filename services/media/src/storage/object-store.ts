import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ExpiringCache } from '@atelier/caching';

export interface ObjectStoreOptions {
  /** Unset: AWS's regional endpoint. */
  endpoint?: string;
  /** The endpoint clients outside the cluster reach; presigned URLs are made for it. */
  publicEndpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

export interface PresignedRequest {
  url: string;
  headers: Record<string, string>;
  expiresAt: Date;
}

function createClient(options: ObjectStoreOptions, endpoint: string | undefined): S3Client {
  return new S3Client({
    endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    // The SDK's default checksums frame bodies as aws-chunked, which S3-compatible stores write
    // verbatim into the object; compute them only where the API requires it.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.name === 'NoSuchBucket' || error.$metadata.httpStatusCode === 404)
  );
}

/** Presigned GETs kept for reuse: polling clients ask for the same asset again and again. */
const DOWNLOAD_URL_CACHE_SIZE = 10_000;

/** The media bucket: the only place image bytes live. */
export class ObjectStore {
  private readonly client: S3Client;
  private readonly presignClient: S3Client;
  private readonly downloadUrls = new ExpiringCache<string, PresignedRequest>(DOWNLOAD_URL_CACHE_SIZE);
  readonly bucket: string;

  constructor(options: ObjectStoreOptions) {
    this.bucket = options.bucket;
    this.client = createClient(options, options.endpoint);
    this.presignClient = options.publicEndpoint ? createClient(options, options.publicEndpoint) : this.client;
  }

  /** Creates the bucket when it does not exist yet. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
      } catch (createError) {
        const name = (createError as { name?: string }).name;
        if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw createError;
      }
    }
  }

  /** A PUT URL whose signature covers the content type and length (real S3 rejects others). */
  async presignPut(key: string, contentType: string, sizeBytes: number, ttlSeconds: number): Promise<PresignedRequest> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: sizeBytes });
    const url = await getSignedUrl(this.presignClient, command, {
      expiresIn: ttlSeconds,
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, headers: { 'Content-Type': contentType }, expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
  }

  /**
   * A presigned GET. Signing costs milliseconds of CPU, so a URL is reused while more than half of
   * its lifetime is left: a client gets a URL valid for at least ttlSeconds / 2.
   */
  async presignGet(key: string, ttlSeconds: number): Promise<PresignedRequest> {
    const cached = this.downloadUrls.get(key);
    if (cached) return cached;
    const signedAt = Date.now();
    const url = await getSignedUrl(this.presignClient, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlSeconds });
    const presigned = { url, headers: {}, expiresAt: new Date(signedAt + ttlSeconds * 1000) };
    this.downloadUrls.set(key, presigned, signedAt + (ttlSeconds * 1000) / 2);
    return presigned;
  }

  /** Forgets the cached URL of a deleted object. */
  forget(key: string): void {
    this.downloadUrls.delete(key);
  }

  /** Size and type of a stored object, or undefined when there is none. */
  async head(key: string): Promise<{ sizeBytes: number; contentType: string | undefined } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { sizeBytes: head.ContentLength ?? 0, contentType: head.ContentType };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The whole object in memory; callers bound the size first (uploads are at most 20 MiB). */
  async getBytes(key: string): Promise<Buffer> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  }

  /**
   * At most the first `maxBytes` of an object (a ranged GET): enough to read an image's header
   * without holding the whole object.
   */
  async getPrefix(key: string, maxBytes: number): Promise<Buffer> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${maxBytes - 1}` }));
    const bytes = Buffer.from(await object.Body!.transformToByteArray());
    // A store that ignores Range sends everything: keep the bound ourselves.
    return bytes.length > maxBytes ? bytes.subarray(0, maxBytes) : bytes;
  }

  /** The SHA-256 of an object, hashed as it streams (never held in memory whole). */
  async sha256(key: string): Promise<Buffer> {
    const body = await this.getStream(key);
    const hash = createHash('sha256');
    try {
      for await (const piece of body as AsyncIterable<Buffer>) hash.update(piece);
    } finally {
      body.destroy();
    }
    return hash.digest();
  }

  /** A server-side copy: the bytes never pass through this process. */
  async copy(fromKey: string, toKey: string): Promise<void> {
    this.forget(toKey);
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: toKey, CopySource: `${this.bucket}/${encodeURI(fromKey)}` }));
  }

  async getStream(key: string): Promise<Readable> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return object.Body as Readable;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }),
    );
  }

  /** Deleting a missing object succeeds (S3 semantics). */
  async delete(key: string): Promise<void> {
    this.forget(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    for (const key of keys) this.forget(key);
    const result = await this.client.send(
      new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
    );
    if (result.Errors?.length) throw new Error(`could not delete ${result.Errors.length} objects: ${result.Errors[0]?.Message}`);
  }

  /** Deletes every object whose key starts with `prefix` (a handful: not paginated past 1,000). */
  async deletePrefix(prefix: string): Promise<void> {
    const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: 1000 }));
    await this.deleteMany((listed.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
  }

  close(): void {
    this.client.destroy();
    if (this.presignClient !== this.client) this.presignClient.destroy();
  }
}
