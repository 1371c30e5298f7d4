import { invalidRequest } from './api-error.js';

/**
 * The failures a test can ask for. Three refuse the POST itself (nothing is created or charged);
 * the rest shape how an accepted prediction ends.
 */
export const SIMULATION_KINDS = [
  'unavailable',
  'rate_limit',
  'credentials',
  'prediction_failed',
  'content_safety',
  'invalid_output',
  'blank_output',
  'wrong_size_output',
  'flagged',
  'hang',
] as const;
export type SimulationKind = (typeof SIMULATION_KINDS)[number];

export type RefusalKind = Extract<SimulationKind, 'unavailable' | 'rate_limit' | 'credentials'>;
const REFUSAL_KINDS: ReadonlySet<SimulationKind> = new Set<RefusalKind>(['unavailable', 'rate_limit', 'credentials']);

export function isRefusalKind(kind: SimulationKind): kind is RefusalKind {
  return REFUSAL_KINDS.has(kind);
}

/** Highest `#sim-latency=` accepted: ten minutes is longer than any worker timeout worth testing. */
export const MAX_DIRECTIVE_LATENCY_MS = 600_000;

/** What a prompt asks of the simulator. */
export interface SimulationDirectives {
  /** `#sim:<kind>`: every prediction of this request fails this way. */
  always?: SimulationKind;
  /** `#sim-once:<kind>`: only the first POST of the job fails this way. */
  once?: SimulationKind;
  /** `#sim-latency=<ms>`: overrides PROVIDER_SIM_LATENCY_MS for this prediction. */
  latencyMs?: number;
  /**
   * `#sim-flaky=<n>`: the prediction's first n polls, and the first n downloads of its output,
   * answer 503 — a vendor having a bad minute while the prediction itself goes on.
   */
  flakyReads?: number;
}

/** Highest `#sim-flaky=` accepted. */
export const MAX_FLAKY_READS = 20;

// A directive's value ends at whitespace or a comma: Atelier appends a style's prompt preset
// after ", " (jobs' effective prompt), so "#sim:fail, a comic book panel with bold ink outlines" still says `fail`.
const KIND_DIRECTIVE = /#sim(-once)?:([^\s,]*)/g;
const LATENCY_DIRECTIVE = /#sim-latency=([^\s,]*)/g;
const FLAKY_DIRECTIVE = /#sim-flaky=([^\s,]*)/g;

function requireKind(raw: string, directive: string): SimulationKind {
  if ((SIMULATION_KINDS as readonly string[]).includes(raw)) return raw as SimulationKind;
  throw invalidRequest('input.prompt', `unknown simulation kind in ${directive}; expected one of ${SIMULATION_KINDS.join(', ')}`);
}

/**
 * Reads the directives out of a prompt (the rest of the prompt is ignored). When a directive
 * appears twice, the first one counts. A malformed directive is a 400 naming `input.prompt`, so
 * a typo in a test fails loudly instead of silently running the happy path.
 */
export function parseSimulationDirectives(prompt: string | undefined): SimulationDirectives {
  const directives: SimulationDirectives = {};
  if (!prompt) return directives;
  for (const match of prompt.matchAll(KIND_DIRECTIVE)) {
    const kind = requireKind(match[2] ?? '', match[0]);
    if (match[1]) directives.once ??= kind;
    else directives.always ??= kind;
  }
  for (const match of prompt.matchAll(LATENCY_DIRECTIVE)) {
    const raw = match[1] ?? '';
    const latencyMs = Number(raw);
    if (!/^\d+$/.test(raw) || latencyMs > MAX_DIRECTIVE_LATENCY_MS) {
      throw invalidRequest('input.prompt', `${match[0]} must give whole milliseconds between 0 and ${MAX_DIRECTIVE_LATENCY_MS}`);
    }
    directives.latencyMs ??= latencyMs;
  }
  for (const match of prompt.matchAll(FLAKY_DIRECTIVE)) {
    const raw = match[1] ?? '';
    const flakyReads = Number(raw);
    if (!/^\d+$/.test(raw) || flakyReads > MAX_FLAKY_READS) {
      throw invalidRequest('input.prompt', `${match[0]} must give a whole number of reads between 0 and ${MAX_FLAKY_READS}`);
    }
    directives.flakyReads ??= flakyReads;
  }
  return directives;
}

/**
 * The job an Idempotency-Key belongs to: its part before the first ':'. Workers key each attempt
 * `<job>:<attempt>`, so `#sim-once` fails the first attempt and lets the retry through.
 */
export function jobOfIdempotencyKey(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}

/**
 * Which failure, if any, this new prediction gets: a `#sim-once` directive on the job's first
 * POST, else a `#sim` directive, else the global random injection (PROVIDER_SIM_FAILURE_RATE).
 */
export function chooseSimulation(options: {
  directives: SimulationDirectives;
  firstPostOfJob: boolean;
  failureRate: number;
  failureKind: SimulationKind;
  random: () => number;
}): SimulationKind | undefined {
  const { directives } = options;
  if (directives.once && options.firstPostOfJob) return directives.once;
  if (directives.always) return directives.always;
  if (options.failureRate > 0 && options.random() < options.failureRate) return options.failureKind;
  return undefined;
}
