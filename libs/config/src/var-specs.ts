/** How one environment variable is parsed. `parse` throws an Error whose message says why. */
export interface VarSpec<T> {
  readonly parse: (raw: string | undefined) => T;
  /** Never echo the value in error messages (passwords, keys). */
  readonly secret?: boolean;
  /** The form a value takes (`an integer in 1..500`), for error messages and documentation. */
  readonly describe: string;
  /**
   * What the variable does, in a sentence: docs/configuration.md is generated from it
   * (`npm run gen:config-docs`), so a variable is documented where it is declared. Set with `doc()`.
   */
  readonly doc?: string;
  /** The default as the documentation shows it, where the parsed value would not say it (a seed, a derived value). */
  readonly shownDefault?: string;
}

/**
 * `spec` with what the variable does (and, where printing the parsed default would not say it, the
 * default in words): `GRPC_PORT: doc(port(50051), 'gRPC listen port (mutual TLS)')`.
 */
export function doc<T>(spec: VarSpec<T>, text: string, shownDefault?: string): VarSpec<T> {
  return shownDefault === undefined ? { ...spec, doc: text } : { ...spec, doc: text, shownDefault };
}

function required(raw: string | undefined, fallback: string | undefined): string {
  const value = raw === undefined || raw.trim() === '' ? fallback : raw.trim();
  if (value === undefined) throw new Error('is required but not set');
  return value;
}

export function str(options: { default?: string; pattern?: RegExp; maxLength?: number; secret?: boolean } = {}): VarSpec<string> {
  return {
    secret: options.secret,
    describe: options.pattern ? `a string matching ${options.pattern}` : 'a string',
    parse(raw) {
      const value = required(raw, options.default);
      if (options.pattern && !options.pattern.test(value)) throw new Error(`must match ${options.pattern}`);
      if (options.maxLength !== undefined && value.length > options.maxLength) {
        throw new Error(`must be at most ${options.maxLength} characters`);
      }
      return value;
    },
  };
}

export function int(options: { default?: number; min?: number; max?: number } = {}): VarSpec<number> {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  return {
    describe: `an integer in ${min}..${max}`,
    parse(raw) {
      const value = required(raw, options.default?.toString());
      if (!/^-?\d+$/.test(value)) throw new Error(`must be an integer, got "${value}"`);
      const parsed = Number(value);
      if (parsed < min || parsed > max) throw new Error(`must be between ${min} and ${max}, got ${parsed}`);
      return parsed;
    },
  };
}

/** A TCP port; 0 asks the OS for a free one (tests). */
export function port(defaultPort?: number): VarSpec<number> {
  return { ...int({ default: defaultPort, min: 0, max: 65535 }), describe: 'a TCP port (0–65535)' };
}

export function bool(defaultValue?: boolean): VarSpec<boolean> {
  return {
    describe: 'true or false',
    parse(raw) {
      const value = required(raw, defaultValue?.toString()).toLowerCase();
      if (['true', '1', 'yes'].includes(value)) return true;
      if (['false', '0', 'no'].includes(value)) return false;
      throw new Error(`must be true or false, got "${value}"`);
    },
  };
}

/** A URL with one of the given protocols (e.g. `['postgres:', 'postgresql:']`). */
export function url(options: { default?: string; protocols: readonly string[]; secret?: boolean }): VarSpec<string> {
  return {
    secret: options.secret,
    describe: `a URL (${options.protocols.join(' or ')})`,
    parse(raw) {
      const value = required(raw, options.default);
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new Error('must be a valid URL');
      }
      if (!options.protocols.includes(parsed.protocol)) {
        throw new Error(`must use ${options.protocols.join(' or ')}, got ${parsed.protocol}`);
      }
      return value;
    },
  };
}

export function oneOf<const T extends string>(values: readonly T[], defaultValue?: T): VarSpec<T> {
  return {
    describe: `one of ${values.join(', ')}`,
    parse(raw) {
      const value = required(raw, defaultValue);
      if (!(values as readonly string[]).includes(value)) {
        throw new Error(`must be one of ${values.join(', ')}, got "${value}"`);
      }
      return value as T;
    },
  };
}

/** `host:port`, as gRPC targets are written (e.g. `127.0.0.1:50051`, `catalog:50051`). */
export function hostPort(defaultValue?: string): VarSpec<string> {
  return {
    describe: 'host:port',
    parse(raw) {
      const value = required(raw, defaultValue);
      const match = /^([A-Za-z0-9.\-_]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(value);
      if (!match || Number(match[2]) > 65535) throw new Error(`must be host:port, got "${value}"`);
      return value;
    },
  };
}

/** Unset (or empty) gives undefined instead of an error. */
export function optional<T>(spec: VarSpec<T>): VarSpec<T | undefined> {
  return {
    ...spec,
    describe: `${spec.describe} (optional)`,
    parse: (raw) => (raw === undefined || raw.trim() === '' ? undefined : spec.parse(raw)),
  };
}
