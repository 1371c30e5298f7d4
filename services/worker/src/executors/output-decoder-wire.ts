/** What one decode finds in an output's bytes (one libvips decode of the whole image). */
export interface ImageFacts {
  /** sharp's name for the type read from the bytes (`png`, `jpeg`, …), `unknown` without one. */
  format: string;
  width: number;
  height: number;
  /** Every channel's standard deviation below BLANK_STDEV: one flat colour. */
  flat: boolean;
}

/** Worker → decoder process: the bytes of one output. One at a time: the next after its answer. */
export interface DecodeRequest {
  id: number;
  bytes: Uint8Array;
}

/** Decoder process → worker: `ready` once sharp is loaded, then one answer per request. */
export type DecoderMessage = { ready: true } | { id: number; facts: ImageFacts } | { id: number; error: string };
