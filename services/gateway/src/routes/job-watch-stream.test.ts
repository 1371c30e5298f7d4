import { describe, expect, it } from 'vitest';
import { jobsV1 } from '@atelier/contracts';
import { AppError, ErrorCode } from '@atelier/errors';
import { watchJobResuming, type WatchCall } from './job-watch-stream.js';

const update = (version: number) => ({ job: jobsV1.Job.fromPartial({ id: 'j', version }) });

/** A WatchJob call that yields the given versions, then fails with `code` (or ends), as the typed client's do. */
function fakeCall(versions: number[], code?: ErrorCode): WatchCall & { cancelled: boolean } {
  const call = {
    cancelled: false,
    cancel() {
      call.cancelled = true;
    },
    async *[Symbol.asyncIterator]() {
      for (const version of versions) yield update(version);
      if (code !== undefined) throw new AppError(code, `the call failed ${code}`);
    },
  };
  return call;
}

async function collect(iterable: AsyncIterable<jobsV1.Job>): Promise<number[]> {
  const versions: number[] = [];
  for await (const job of iterable) versions.push(job.version);
  return versions;
}

describe('watchJobResuming', () => {
  it('reopens a stream that ends transiently (UNAVAILABLE, DEADLINE_EXCEEDED) after the last version seen, unnoticed by the reader', async () => {
    const opened: number[] = [];
    const calls = [fakeCall([2, 3], ErrorCode.UNAVAILABLE), fakeCall([], ErrorCode.DEADLINE_EXCEEDED), fakeCall([4, 5])];
    const open = (after: number) => {
      opened.push(after);
      return calls.shift()!;
    };
    const versions = await collect(watchJobResuming(open, 1, { signal: new AbortController().signal, backoffMs: 1 }));
    expect(versions).toEqual([2, 3, 4, 5]);
    expect(opened).toEqual([1, 3, 3]);
  });

  it('passes on other errors at once, and UNAVAILABLE after too many reopenings without progress', async () => {
    const denied = () => fakeCall([2], ErrorCode.PERMISSION_DENIED);
    await expect(collect(watchJobResuming(denied, 0, { signal: new AbortController().signal }))).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
    let opens = 0;
    const down = () => {
      opens += 1;
      return fakeCall([], ErrorCode.UNAVAILABLE);
    };
    await expect(
      collect(watchJobResuming(down, 0, { signal: new AbortController().signal, maxResumes: 2, backoffMs: 1 })),
    ).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
    expect(opens).toBe(3);
  });

  it('cancels the open call when the client goes away', async () => {
    const client = new AbortController();
    const call = fakeCall([2, 3, 4]);
    const versions: number[] = [];
    for await (const job of watchJobResuming(() => call, 0, { signal: client.signal })) {
      versions.push(job.version);
      client.abort();
      break;
    }
    expect(versions).toEqual([2]);
    expect(call.cancelled).toBe(true);
  });
});
