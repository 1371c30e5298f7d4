import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
/** pino's, beyond what Fastify's logger type names. */
interface Leveled {
  isLevelEnabled(level: string): boolean;
}

/**
 * A request's logger (`request.log`) that becomes a real pino child — bound to the request id —
 * only when something is logged at a level it logs. Fastify makes a child per request; with
 * request logging off almost none logs anything, and a pino child costs a redaction pass over its
 * bindings and a few objects: a measurable share of a cached job read.
 */
class LazyRequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private log(level: Level, args: unknown[]): void {
    // A level the parent does not log is not worth a child (unless the child has a level of its own).
    if (!this.made && !this.options?.level && (this.parent as Partial<Leveled>).isLevelEnabled?.(level) === false) return;
    const logger = this.real() as unknown as Record<Level, (...args: unknown[]) => void>;
    logger[level](...args);
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory, making each request's logger a LazyRequestLogger. */
export const lazyRequestLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
