// EXPLAIN (ANALYZE, BUFFERS) of the jobs service's own statements, as its code issues them: the
// service's query functions run on a connection that explains every statement before running it,
// inside a transaction that is rolled back (a claim or a create changes nothing).
import type pg from 'pg';
import type { Queryable } from '@atelier/db';

export interface ExplainedStatement {
  /** The statement's prepared-statement name, or its first words. */
  statement: string;
  executionMs: number;
  /** Shared buffers the statement touched (hit + read), from the top plan node. */
  buffers: number;
  plan: string;
}

/**
 * A Queryable that records the plan of each statement it is given (EXPLAIN ANALYZE runs it once)
 * and then runs it for real, so the code under study gets its answer and carries on.
 */
function explainingQueryable(client: pg.Client, plans: ExplainedStatement[]): Queryable {
  const queryable = {
    async query(config: string | pg.QueryConfig, values?: unknown[]) {
      const text = typeof config === 'string' ? config : config.text;
      const params = typeof config === 'string' ? values : config.values;
      const name = typeof config === 'string' ? undefined : config.name;
      await client.query('SAVEPOINT explain');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as unknown[]);
      await client.query('ROLLBACK TO SAVEPOINT explain');
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      const hit = /shared hit=(\d+)/.exec(plan);
      const read = /read=(\d+)/.exec(plan);
      plans.push({
        statement: name ?? text.trim().split(/\s+/).slice(0, 4).join(' '),
        executionMs: Number(/Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? Number.NaN),
        buffers: Number(hit?.[1] ?? 0) + Number(read?.[1] ?? 0),
        plan,
      });
      return client.query(text, params as unknown[]);
    },
  };
  // Only the promise-returning forms the service's SQL uses (text + values, or a config) are served.
  return queryable as unknown as Queryable;
}

/** Runs `work` against the explaining connection in a transaction that is rolled back; answers every plan. */
export async function explainStatements(client: pg.Client, work: (db: Queryable) => Promise<unknown>): Promise<ExplainedStatement[]> {
  const plans: ExplainedStatement[] = [];
  await client.query('BEGIN');
  try {
    await work(explainingQueryable(client, plans));
  } finally {
    await client.query('ROLLBACK');
  }
  return plans;
}
