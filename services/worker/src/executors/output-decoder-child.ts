// The output decoder's process, started by output-decoder.ts: sharp (libvips) is loaded here and
// never in the worker, whose resident memory it would hold for as long as the worker runs. Its
// entry is bundled beside main.js (scripts/build.mjs bundles every src/**/*-child.ts).
import sharp from 'sharp';
import { BLANK_STDEV } from '@atelier/job-types';
import type { DecodeRequest, DecoderMessage, ImageFacts } from './output-decoder-wire.js';

function send(message: DecoderMessage): void {
  process.send!(message);
}

async function decode(bytes: Uint8Array): Promise<ImageFacts> {
  const image = sharp(bytes, { failOn: 'error' });
  const [metadata, stats] = await Promise.all([image.metadata(), image.stats()]);
  return {
    format: metadata.format ?? 'unknown',
    width: metadata.width ?? 0,
    height: metadata.height ?? 0,
    flat: stats.channels.every((channel) => channel.stdev < BLANK_STDEV),
  };
}

process.on('message', (request: DecodeRequest) => {
  decode(request.bytes).then(
    (facts) => send({ id: request.id, facts }),
    (error: unknown) => send({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The worker ended or went away (a crash, SIGKILL): a decoder has no one to answer.
process.on('disconnect', () => process.exit(0));
send({ ready: true });
