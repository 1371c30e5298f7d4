// A decoder process that dies on every output it is given (output-decoder.test.ts), as libvips
// would on bytes that crash it.
import type { DecoderMessage } from '../executors/output-decoder-wire.js';

process.send!({ ready: true } satisfies DecoderMessage);
process.on('message', () => process.kill(process.pid, 'SIGSEGV'));
