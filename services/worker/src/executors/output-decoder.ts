import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { JobFailure } from '../domain/job-failure.js';
import type { DecodeRequest, DecoderMessage, ImageFacts } from './output-decoder-wire.js';

export type { ImageFacts } from './output-decoder-wire.js';

/** A decode's result: the image's facts, or why the bytes are no image (for operators). */
export type DecodeOutcome = { decoded: true; facts: ImageFacts } | { decoded: false; reason: string };

/** Anything that decodes an output (OutputDecoder; a test's stand-in). */
export interface ImageDecoder {
  decode(bytes: Uint8Array): Promise<DecodeOutcome>;
}

export interface OutputDecoderOptions {
  /** How long the decoder process lives after its last answer (0: it ends after each). */
  idleMs: number;
  /** A decode not answered within this is the output's fault: the process is killed. */
  timeoutMs?: number;
  /** The decoder process's script (tests point it elsewhere); `.ts` runs under tsx. */
  childScript?: string;
}

/** Long enough for the largest output the platform accepts (8192 px a side), on a busy node. */
export const DECODE_TIMEOUT_MS = 30_000;

// Only what node and libvips read: the decoder needs none of the worker's credentials.
const CHILD_ENVIRONMENT = /^(PATH|HOME|TMPDIR|NODE_ENV|LANG|LC_\w+|VIPS_\w+|UV_THREADPOOL_SIZE)$/;

interface PendingDecode {
  readonly bytes: Uint8Array;
  /** Decoder processes that died while decoding these bytes. */
  deaths: number;
  resolve(outcome: DecodeOutcome): void;
  reject(error: Error): void;
}

interface Decoder {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  ready: boolean;
}

/**
 * Decodes vendor outputs in a child process (output-decoder-child.ts), so that the worker itself
 * never loads sharp: libvips, once loaded, holds ~13 MB of the worker's resident memory for as
 * long as it runs, past what an idle worker may hold. The child starts at the first decode, serves
 * the decodes that follow while they keep coming, and ends once none came for `idleMs`.
 *
 * One decode is in the child at a time (the rest wait, in order), so a child that dies is known
 * to have died on those bytes: they are decoded once more in a new child, and a second death on
 * them is theirs (a libvips crash on a vendor's bytes is the output's fault, not the worker's).
 */
export class OutputDecoder implements ImageDecoder {
  readonly #idleMs: number;
  readonly #timeoutMs: number;
  readonly #script: string;
  readonly #queue: PendingDecode[] = [];
  readonly #children = new Set<Decoder>();
  #child: Decoder | undefined;
  #current: { decode: PendingDecode; id: number; timer: NodeJS.Timeout } | undefined;
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: OutputDecoderOptions) {
    this.#idleMs = options.idleMs;
    this.#timeoutMs = options.timeoutMs ?? DECODE_TIMEOUT_MS;
    this.#script = options.childScript ?? bundledOrSourceChild();
  }

  /** The running decoder process's pid, if one runs. */
  get childPid(): number | undefined {
    return this.#child?.process.pid;
  }

  /**
   * Rejects (INTERNAL_OUTPUT_DECODER_UNAVAILABLE) only when the decoder process cannot start: a
   * broken worker, not a bad output. Every fault of the bytes is an outcome.
   */
  decode(bytes: Uint8Array): Promise<DecodeOutcome> {
    if (this.#stopped) return Promise.reject(decoderUnavailable('the worker is stopping'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ bytes, deaths: 0, resolve, reject });
      this.#pump();
    });
  }

  /** Ends the decoder process; decodes still waiting are rejected. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#idleTimer);
    const waiting = [...(this.#current ? [this.#current.decode] : []), ...this.#queue.splice(0)];
    if (this.#current) clearTimeout(this.#current.timer);
    this.#current = undefined;
    for (const decode of waiting) decode.reject(decoderUnavailable('the worker is stopping'));
    this.#child = undefined;
    for (const child of this.#children) child.process.kill('SIGKILL');
    await Promise.all([...this.#children].map((child) => child.exited));
  }

  #pump(): void {
    if (this.#stopped || this.#current) return;
    const decode = this.#queue.shift();
    if (!decode) {
      this.#idle();
      return;
    }
    clearTimeout(this.#idleTimer);
    const child = (this.#child ??= this.#start());
    child.process.ref();
    child.process.channel?.ref();
    const id = ++this.#nextId;
    const timer = setTimeout(() => this.#timedOut(child), this.#timeoutMs);
    this.#current = { decode, id, timer };
    if (child.ready) this.#send(child);
  }

  #start(): Decoder {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => CHILD_ENVIRONMENT.test(name)));
    const child = fork(this.#script, [], {
      execArgv: this.#script.endsWith('.ts') ? ['--import', tsxLoader()] : [],
      env,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const decoder: Decoder = {
      process: child,
      ready: false,
      exited: new Promise((resolve) => child.once('close', () => resolve())),
    };
    this.#children.add(decoder);
    child.on('message', (message: DecoderMessage) => this.#answered(decoder, message));
    child.once('exit', (code, signal) => this.#gone(decoder, signal ?? `exit code ${code}`));
    // A process that could not be spawned emits no exit.
    child.on('error', (error) => {
      if (child.pid === undefined) {
        this.#gone(decoder, error.message);
        this.#children.delete(decoder);
      }
    });
    void decoder.exited.then(() => this.#children.delete(decoder));
    return decoder;
  }

  #send(child: Decoder): void {
    const current = this.#current!;
    const request: DecodeRequest = { id: current.id, bytes: current.decode.bytes };
    // A send that fails means the child is going: its exit decides what becomes of the decode.
    child.process.send(request, (error) => {
      if (error) child.process.kill('SIGKILL');
    });
  }

  #answered(child: Decoder, message: DecoderMessage): void {
    if (child !== this.#child) return;
    if ('ready' in message) {
      child.ready = true;
      if (this.#current) this.#send(child);
      return;
    }
    const current = this.#current;
    if (!current || current.id !== message.id) return;
    clearTimeout(current.timer);
    this.#current = undefined;
    current.decode.resolve(
      'facts' in message
        ? { decoded: true, facts: message.facts }
        : { decoded: false, reason: `the output does not decode as an image (${message.error})` },
    );
    this.#pump();
  }

  /** The child ended (killed, crashed, or ended here): what it was decoding is tried once more. */
  #gone(child: Decoder, how: string): void {
    if (child !== this.#child) return;
    this.#child = undefined;
    const current = this.#current;
    if (!current) return;
    clearTimeout(current.timer);
    this.#current = undefined;
    const { decode } = current;
    if (!child.ready) {
      decode.reject(decoderUnavailable(`the decoder process ended before it was ready (${how})`));
    } else if (++decode.deaths < 2) {
      this.#queue.unshift(decode);
    } else {
      decode.resolve({
        decoded: false,
        reason: `the output does not decode as an image (the decoder process died on it twice, last: ${how})`,
      });
    }
    this.#pump();
  }

  #timedOut(child: Decoder): void {
    const current = this.#current!;
    this.#current = undefined;
    this.#child = undefined;
    child.process.kill('SIGKILL');
    const seconds = this.#timeoutMs / 1000;
    if (child.ready) {
      current.decode.resolve({ decoded: false, reason: `the output does not decode as an image (not decoded within ${seconds} s)` });
    } else {
      current.decode.reject(decoderUnavailable(`the decoder process was not ready within ${seconds} s`));
    }
    this.#pump();
  }

  /** Nothing to decode: the child may end, and holds the worker's event loop open no more. */
  #idle(): void {
    const child = this.#child;
    if (!child) return;
    child.process.unref();
    child.process.channel?.unref();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#child !== child || this.#current) return;
      this.#child = undefined;
      child.process.kill('SIGTERM');
    }, this.#idleMs);
    this.#idleTimer.unref();
  }
}

function decoderUnavailable(why: string): JobFailure {
  return JobFailure.internal('INTERNAL_OUTPUT_DECODER_UNAVAILABLE', `outputs cannot be checked: ${why}`);
}

/**
 * The decoder's script: beside this module when it runs from source (tsx, tests), else in the
 * bundle's dist/, whose entries sit above the chunks/ that may hold this code (scripts/build.mjs).
 */
function bundledOrSourceChild(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  if (here.endsWith('.ts')) return path.join(dir, 'output-decoder-child.ts');
  return path.join(path.basename(dir) === 'chunks' ? path.dirname(dir) : dir, 'output-decoder-child.js');
}

/** tsx's loader by its file URL: found from this module, wherever the worker was started. */
function tsxLoader(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
}
