import { InvalidArgumentError } from '@atelier/errors';
import { definitionProblem, type JobDefinition } from './job-definition.js';

/** Thrown at start-up for a duplicate or invalid definition: the service must not start. */
export class JobDefinitionError extends Error {
  override name = 'JobDefinitionError';
}

/** The job types this deployment knows, by jobType. */
export class JobDefinitionRegistry {
  private readonly definitions = new Map<string, JobDefinition>();

  constructor(definitions: readonly JobDefinition[]) {
    for (const definition of definitions) {
      const problem = definitionProblem(definition);
      if (problem) throw new JobDefinitionError(`invalid job definition: ${problem}`);
      if (this.definitions.has(definition.jobType)) throw new JobDefinitionError(`duplicate job definition: ${definition.jobType}`);
      this.definitions.set(definition.jobType, definition);
    }
  }

  /** The definition of a job type a request names; unknown types are the caller's mistake. */
  get(jobType: string, field = 'job_type'): JobDefinition {
    const definition = this.definitions.get(jobType);
    if (!definition)
      throw new InvalidArgumentError(
        field,
        `unknown job type "${jobType.slice(0, 64)}"; known: ${[...this.definitions.keys()].join(', ')}`,
      );
    return definition;
  }

  /** For rows already in the database (their type was valid when they were created). */
  find(jobType: string): JobDefinition | undefined {
    return this.definitions.get(jobType);
  }

  all(): JobDefinition[] {
    return [...this.definitions.values()];
  }
}
