import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, ErrorCode, InvalidArgumentError, NotFoundError, UnavailableError } from '@atelier/errors';
import { jobsV1, loadDescriptorSet, mediaV1 } from '@atelier/contracts';
import { testSecurity } from '@atelier/testing';
import {
  createServiceClient,
  registerService,
  startGrpcServer,
  type GrpcServerHandle,
  type PromiseClient,
  type ServerStreamCall,
  type ServiceHandlers,
} from './index.js';

const silent = { debug: () => {}, info: () => {}, error: () => {} };
const unimplemented = async (): Promise<never> => {
  throw new AppError(ErrorCode.INTERNAL, 'not used in this test');
};

/** What the server saw of its streams, for the assertions on cancellation. */
const seen = { watchEnded: [] as string[], putChunks: 0, putCancelled: 0 };

// WatchJob's job id scripts the stream: how many updates, then how it ends.
const jobsHandlers: ServiceHandlers<typeof jobsV1.JobsServiceService> = {
  createJob: unimplemented,
  getJob: unimplemented,
  listJobs: unimplemented,
  cancelJob: unimplemented,
  getQuota: unimplemented,
  requestAccountDeletion: unimplemented,
  getAccountDeletion: unimplemented,
  async watchJob(request, stream, context) {
    if (request.jobId === 'missing') throw new NotFoundError('job');
    for (let version = 1; version <= 3; version += 1) await stream.write({ job: jobsV1.Job.fromPartial({ id: request.jobId, version }) });
    if (request.jobId === 'drops') throw new UnavailableError('jobs is restarting');
    if (request.jobId === 'endless') {
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
      seen.watchEnded.push(`${request.jobId}: cancelled`);
    }
  },
};

// PutServerAsset: a header, then chunks; a chunk of one byte 0xff is refused, as a bad part would be.
const mediaHandlers: ServiceHandlers<typeof mediaV1.MediaServiceService> = {
  createUpload: unimplemented,
  completeUpload: unimplemented,
  getAsset: unimplemented,
  getAssetInternal: unimplemented,
  getAssetsInternal: unimplemented,
  readAsset: unimplemented,
  deleteAsset: unimplemented,
  getAccountDeletion: unimplemented,
  listAssets: unimplemented,
  deleteOwnAsset: unimplemented,
  deleteExpiredInput: unimplemented,
  async putServerAsset(requests, context) {
    context.signal.addEventListener('abort', () => (seen.putCancelled += 1), { once: true });
    let owner = '';
    let bytes = 0;
    for await (const { part } of requests) {
      if (part?.$case === 'header') owner = part.header.ownerUserId;
      if (part?.$case === 'chunk') {
        if (part.chunk.length === 1 && part.chunk[0] === 0xff) throw new InvalidArgumentError('chunk', 'is not part of an image');
        seen.putChunks += 1;
        bytes += part.chunk.length;
      }
    }
    return { asset: mediaV1.Asset.fromPartial({ id: `${owner}:${bytes}`, sizeBytes: bytes }), created: true };
  },
};

let server: GrpcServerHandle;
let jobs: PromiseClient<jobsV1.JobsServiceClient>;
let media: PromiseClient<mediaV1.MediaServiceClient>;

beforeAll(async () => {
  server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    healthPort: 0,
    security: await testSecurity('media'),
    logger: silent,
    descriptorSet: loadDescriptorSet(),
    services: [
      registerService('atelier.jobs.v1.JobsService', jobsV1.JobsServiceService, jobsHandlers, silent, { gateway: 'all' }),
      registerService('atelier.media.v1.MediaService', mediaV1.MediaServiceService, mediaHandlers, silent, { worker: 'all' }),
    ],
  });
  const address = `127.0.0.1:${server.port}`;
  jobs = createServiceClient(jobsV1.JobsServiceClient, address, await testSecurity('gateway'), { serverName: 'media' });
  media = createServiceClient(mediaV1.MediaServiceClient, address, await testSecurity('worker'));
});

afterAll(async () => {
  jobs?.close();
  media?.close();
  await server?.shutdown(100);
});

const watch = (jobId: string, signal?: AbortSignal): ServerStreamCall<jobsV1.WatchJobResponse> =>
  jobs.watchJob({ jobId, userId: 'u', afterVersion: 0 }, { signal });

/** Iterates a call to its end: the versions it yielded, and what it threw. */
async function drain(call: AsyncIterable<jobsV1.WatchJobResponse>): Promise<{ versions: number[]; error?: unknown }> {
  const versions: number[] = [];
  try {
    for await (const update of call) versions.push(update.job!.version);
    return { versions };
  } catch (error) {
    return { versions, error };
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('grpc client - server streams', () => {
  it('yields every response in order and ends with the stream', async () => {
    expect(await drain(watch('j1'))).toEqual({ versions: [1, 2, 3] });
  });

  it('fails with the domain error, like a unary call: at once, or after the responses already sent', async () => {
    const missing = await drain(watch('missing'));
    expect(missing.versions).toEqual([]);
    expect(missing.error).toBeInstanceOf(AppError);
    expect(missing.error).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'JOB_NOT_FOUND', message: 'job not found' });
    const dropped = await drain(watch('drops'));
    expect(dropped.versions).toEqual([1, 2, 3]);
    expect(dropped.error).toMatchObject({ code: ErrorCode.UNAVAILABLE, reason: 'UNAVAILABLE', message: 'jobs is restarting' });
  });

  it('still fails with the error when it came before anyone iterated (no unhandled error event, no quiet end)', async () => {
    const call = watch('missing');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await drain(call)).error).toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('ends the call on cancel() or an aborted signal: the iteration fails CANCELLED and the server hears of it', async () => {
    seen.watchEnded.length = 0;
    const readThenStop = async (call: ServerStreamCall<jobsV1.WatchJobResponse>, stop: () => void) => {
      const versions: number[] = [];
      try {
        for await (const update of call) if (versions.push(update.job!.version) === 3) stop();
        return { versions };
      } catch (error) {
        return { versions, error };
      }
    };
    const cancelled = watch('endless');
    expect(await readThenStop(cancelled, () => cancelled.cancel())).toMatchObject({
      versions: [1, 2, 3],
      error: { code: ErrorCode.CANCELLED },
    });
    await until(() => seen.watchEnded.length === 1);

    const client = new AbortController();
    expect(await readThenStop(watch('endless', client.signal), () => client.abort())).toMatchObject({
      versions: [1, 2, 3],
      error: { code: ErrorCode.CANCELLED },
    });
    await until(() => seen.watchEnded.length === 2);
  });

  it('ends the call when the reader stops early', async () => {
    seen.watchEnded.length = 0;
    for await (const update of watch('endless')) if (update.job!.version === 2) break;
    await until(() => seen.watchEnded.length === 1);
  });

  it('fails DEADLINE_EXCEEDED when given a deadline it outlives', async () => {
    const startedAt = Date.now();
    const call = jobs.watchJob({ jobId: 'endless', userId: 'u', afterVersion: 0 }, { deadlineMs: 300 });
    expect((await drain(call)).error).toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(250);
  });
});

const header = (ownerUserId: string): mediaV1.PutServerAssetRequest => ({
  part: {
    $case: 'header',
    header: { ownerUserId, purpose: mediaV1.AssetPurpose.AI_OUTPUT, contentType: 'image/png', sizeBytes: 0, idempotencyKey: '' },
  },
});
const chunk = (bytes: Buffer): mediaV1.PutServerAssetRequest => ({ part: { $case: 'chunk', chunk: bytes } });

describe('grpc client - client streams', () => {
  it('sends an iterable, waiting for the transport when its buffer is full, and resolves with the answer', async () => {
    const chunks = Array.from({ length: 300 }, () => chunk(Buffer.alloc(64 * 1024, 7)));
    await expect(media.putServerAsset([header('u1'), ...chunks])).resolves.toMatchObject({
      asset: { id: `u1:${300 * 64 * 1024}`, sizeBytes: 300 * 64 * 1024 },
    });
  });

  it('sends an async iterable', async () => {
    async function* parts() {
      yield header('u2');
      for (let i = 0; i < 3; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        yield chunk(Buffer.from('abc'));
      }
    }
    await expect(media.putServerAsset(parts())).resolves.toMatchObject({ asset: { id: 'u2:9' } });
  });

  it('rejects with the domain error of a refusal and stops sending once the server has answered', async () => {
    let sent = 0;
    function* parts() {
      yield header('u3');
      yield chunk(Buffer.from([0xff]));
      // Slow enough for the refusal to arrive long before the last of these.
      for (let i = 0; i < 1_000; i += 1, sent += 1) yield chunk(Buffer.alloc(64 * 1024));
    }
    const error = await media.putServerAsset(parts()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'chunk', message: 'chunk: is not part of an image' });
    expect(sent).toBeLessThan(1_000);
  });

  it('cancels the call when the iterable throws, and rejects with its error', async () => {
    const cancelledBefore = seen.putCancelled;
    async function* parts() {
      yield header('u4');
      await new Promise((resolve) => setTimeout(resolve, 50));
      throw new Error('the output could not be read');
    }
    await expect(media.putServerAsset(parts())).rejects.toThrow('the output could not be read');
    await until(() => seen.putCancelled === cancelledBefore + 1);
  });

  it('cancels the call when the signal aborts', async () => {
    const client = new AbortController();
    async function* parts() {
      yield header('u5');
      client.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      yield chunk(Buffer.from('late'));
    }
    await expect(media.putServerAsset(parts(), { signal: client.signal })).rejects.toMatchObject({ code: ErrorCode.CANCELLED });
  });
});
