import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Fields that must never reach a log line: credentials, tokens, and user content (prompts).
 * Paths are matched at the top level and one object below (`err.config.password` is the caller's
 * business: log ids, not objects).
 */
const REDACTED_PATHS = [
  'password',
  'secret',
  'token',
  'authorization',
  'prompt',
  'negativePrompt',
  'negative_prompt',
  'accessKeyId',
  'secretAccessKey',
  '*.password',
  '*.secret',
  '*.token',
  '*.authorization',
  '*.prompt',
  '*.negativePrompt',
  '*.negative_prompt',
  '*.secretAccessKey',
  'headers.authorization',
  'req.headers.authorization',
  'metadata.authorization',
] as const;

export interface LoggerOptions {
  /** The service name, on every line as `service`. */
  service: string;
  /** pino level; LOG_LEVEL in configuration. */
  level?: string;
  /** Where lines go; stdout by default. Tests pass a stream. */
  destination?: DestinationStream;
}

/** One JSON object per line on stdout, ISO timestamps, secrets and prompts redacted. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
