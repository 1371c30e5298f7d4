import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { BLANK_STDEV } from '@atelier/job-types';
import { waitUntil } from '@atelier/testing';
import { JobFailure } from '../domain/job-failure.js';
import { OutputDecoder, type OutputDecoderOptions } from './output-decoder.js';

const testSupport = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-support');

const decoders: OutputDecoder[] = [];
function decoderWith(options: Partial<OutputDecoderOptions> = {}): OutputDecoder {
  const decoder = new OutputDecoder({ idleMs: 60_000, ...options });
  decoders.push(decoder);
  return decoder;
}
afterEach(async () => {
  await Promise.all(decoders.splice(0).map((decoder) => decoder.stop()));
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A picture: a background with a circle on it (not one flat colour). */
async function picture(width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const circle = `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="orange"/></svg>`;
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 144, b: 255 } } })
    .composite([{ input: Buffer.from(circle) }])
    .toFormat(format)
    .toBuffer();
}

/** What sharp reads of the bytes in this process, as the worker read it before the decoder. */
async function readInProcess(bytes: Buffer) {
  const image = sharp(bytes, { failOn: 'error' });
  const [metadata, stats] = await Promise.all([image.metadata(), image.stats()]);
  return {
    format: metadata.format,
    width: metadata.width,
    height: metadata.height,
    flat: stats.channels.every((channel) => channel.stdev < BLANK_STDEV),
  };
}

describe('output decoder - decodes outputs in a process of its own', () => {
  it.each([
    ['a PNG', () => picture(320, 240, 'png')],
    ['a JPEG', () => picture(300, 200, 'jpeg')],
    [
      'a flat PNG',
      () =>
        sharp({ create: { width: 96, height: 64, channels: 4, background: '#ffffff' } })
          .png()
          .toBuffer(),
    ],
  ])('answers what sharp reads in-process, for %s', async (_, make) => {
    const bytes = await make();
    const outcome = await decoderWith().decode(bytes);
    expect(outcome).toEqual({ decoded: true, facts: await readInProcess(bytes) });
  });

  it("answers bytes that are no image as undecodable, with libvips' reason", async () => {
    const outcome = await decoderWith().decode(Buffer.from('these bytes are text, not an image'));
    expect(outcome).toMatchObject({ decoded: false, reason: expect.stringMatching(/^the output does not decode as an image \(.+\)$/) });
  });

  it('serves a burst with one process, ends it after the idle period, and starts another for the next decode', async () => {
    const decoder = decoderWith({ idleMs: 400 });
    const bytes = await picture(320, 240, 'png');
    const burst = Array.from({ length: 6 }, () => decoder.decode(bytes));
    const pid = decoder.childPid!;
    expect(pid).toBeGreaterThan(0);
    for (const outcome of await Promise.all(burst)) expect(outcome).toMatchObject({ decoded: true });
    expect(decoder.childPid).toBe(pid);
    expect(alive(pid)).toBe(true);

    await waitUntil(() => !alive(pid), { timeoutMs: 5_000, what: 'the idle decoder process ended' });
    expect(decoder.childPid).toBeUndefined();
    expect(await decoder.decode(bytes)).toMatchObject({ decoded: true });
    expect(decoder.childPid).not.toBe(pid);
  });

  it('decodes again, in a new process, the output whose process was killed mid-decode', async () => {
    const decoder = decoderWith();
    await decoder.decode(await picture(64, 64, 'png'));
    const killed = decoder.childPid!;
    const bytes = await picture(1200, 900, 'png');
    const answer = decoder.decode(bytes);
    process.kill(killed, 'SIGKILL');
    expect(await answer).toEqual({ decoded: true, facts: await readInProcess(bytes) });
    // Answered by a second process, started for the retry.
    expect(decoder.childPid).toEqual(expect.any(Number));
    expect(decoder.childPid).not.toBe(killed);
    expect(alive(killed)).toBe(false);
  });

  it('holds an output its process dies on twice as undecodable', async () => {
    const decoder = decoderWith({ childScript: path.join(testSupport, 'crashing-decoder.ts') });
    const outcome = await decoder.decode(await picture(64, 64, 'png'));
    expect(outcome).toEqual({
      decoded: false,
      reason: 'the output does not decode as an image (the decoder process died on it twice, last: SIGSEGV)',
    });
  });

  it('holds an output not decoded within the timeout as undecodable, and kills its process', async () => {
    const decoder = decoderWith({ childScript: path.join(testSupport, 'hanging-decoder.ts'), timeoutMs: 1_500 });
    const answer = decoder.decode(await picture(64, 64, 'png'));
    const pid = decoder.childPid!;
    expect(await answer).toEqual({ decoded: false, reason: 'the output does not decode as an image (not decoded within 1.5 s)' });
    await waitUntil(() => !alive(pid), { timeoutMs: 5_000, what: 'the hanging decoder process was killed' });
  });

  it("fails the decode as the worker's fault when the decoder process cannot start", async () => {
    const decoder = decoderWith({ childScript: path.join(testSupport, 'broken-decoder.ts') });
    const failure = await decoder.decode(Buffer.from('any bytes')).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JobFailure);
    expect(failure).toMatchObject({
      code: 'INTERNAL_OUTPUT_DECODER_UNAVAILABLE',
      message: expect.stringMatching(/ended before it was ready \(exit code 1\)/),
    });
  });

  it('ends its process when stopped, and takes no decode after', async () => {
    const decoder = decoderWith();
    await decoder.decode(await picture(64, 64, 'png'));
    const pid = decoder.childPid!;
    await decoder.stop();
    expect(alive(pid)).toBe(false);
    await expect(decoder.decode(Buffer.from('any bytes'))).rejects.toMatchObject({ code: 'INTERNAL_OUTPUT_DECODER_UNAVAILABLE' });
  });

  it('leaves sharp out of the process that validates outputs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'output-decoder-'));
    try {
      const file = path.join(dir, 'output.png');
      writeFileSync(file, await picture(320, 240, 'png'));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', path.join(testSupport, 'sharp-free-validation.ts'), file],
        { timeout: 20_000 },
      );
      const seen = JSON.parse(stdout) as { verdict: unknown; inThisProcess: string[]; afterImportingSharp: string[] };
      expect(seen.verdict).toEqual({ accepted: true, contentType: 'image/png', width: 320, height: 240 });
      expect(seen.inThisProcess).toEqual([]);
      // The probe finds sharp where it is loaded.
      expect(seen.afterImportingSharp).toEqual(expect.arrayContaining([expect.stringMatching(/libvips/)]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
