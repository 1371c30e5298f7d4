// A decoder process that starts and never answers (output-decoder.test.ts): a decode that hangs.
import type { DecoderMessage } from '../executors/output-decoder-wire.js';

process.send!({ ready: true } satisfies DecoderMessage);
process.on('message', () => undefined);
