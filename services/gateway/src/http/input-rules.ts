/**
 * Rules every value a client sends must keep, whatever the route's schema says: text without
 * NUL, other C0 controls (tab, line feed and carriage return excepted) or lone surrogates
 * (Postgres refuses NUL in text, protobuf and JSON cannot carry a lone surrogate faithfully),
 * finite numbers (JSON's 1e400 parses to Infinity), and a bounded nesting depth (free-form
 * objects such as a job's parameters are encoded recursively further on).
 */
export const MAX_NESTING_DEPTH = 16;

// eslint-disable-next-line no-control-regex -- these control characters are exactly what is refused
const FORBIDDEN_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

/** What a client made up (a field name, a path), as an error message quotes it: at most 100 characters — a field name may be a megabyte long. */
export function clipped(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

/** Why a string is refused, or undefined when it is fine. */
export function textProblem(value: string): string | undefined {
  if (FORBIDDEN_CONTROLS.test(value)) return 'contains a control character (NUL and other C0 controls are not allowed)';
  if (!value.isWellFormed()) return 'contains an invalid character (a lone UTF-16 surrogate)';
  return undefined;
}

/**
 * The first value in `root` that breaks a rule, as `where.path problem` (e.g. `body.title
 * contains a control character …`), or undefined. Iterative, so no input can exhaust the stack.
 */
export function findInputProblem(root: unknown, where: string): string | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: root, path: where, depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return `${clipped(path)} ${problem}`;
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${clipped(path)} must be a finite number`;
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_NESTING_DEPTH) return `${clipped(path)} is nested more than ${MAX_NESTING_DEPTH} levels deep`;
      const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
      for (const [key, item] of entries) {
        const keyProblem = textProblem(key);
        if (keyProblem) return `${clipped(path)} has a field name that ${keyProblem}`;
        pending.push({ value: item, path: `${path}.${key}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
