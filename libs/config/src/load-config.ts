import type { VarSpec } from './var-specs.js';

export type ConfigSpec = Record<string, VarSpec<unknown>>;
export type ConfigOf<S extends ConfigSpec> = { readonly [K in keyof S]: ReturnType<S[K]['parse']> };

/** Every problem with the environment at once, one line per variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly { variable: string; problem: string }[];

  constructor(problems: readonly { variable: string; problem: string }[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable} ${p.problem}`).join('\n')}`);
    this.problems = problems;
  }
}

/** A rule across variables (one needs another, two exclude each other): its problems, if any. */
export type ConfigCheck<S extends ConfigSpec> = (config: ConfigOf<S>) => { variable: string; problem: string }[];

export function loadConfig<S extends ConfigSpec>(
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
  checks: readonly ConfigCheck<S>[] = [],
): ConfigOf<S> {
  const values: Record<string, unknown> = {};
  const problems: { variable: string; problem: string }[] = [];
  for (const [variable, varSpec] of Object.entries(spec)) {
    try {
      values[variable] = varSpec.parse(env[variable]);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // A secret's value must not reach logs through an error message.
      const problem = varSpec.secret ? `is invalid: expected ${varSpec.describe}` : reason;
      problems.push({ variable, problem });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const config = Object.freeze(values) as ConfigOf<S>;
  const crossProblems = checks.flatMap((check) => check(config));
  if (crossProblems.length > 0) throw new ConfigError(crossProblems);
  return config;
}

/** For `main.ts`: a bad environment stops the process with a message naming each variable. */
export function loadConfigOrExit<S extends ConfigSpec>(
  service: string,
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
  checks: readonly ConfigCheck<S>[] = [],
): ConfigOf<S> {
  try {
    return loadConfig(spec, env, checks);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}
