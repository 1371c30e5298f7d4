import type pg from 'pg';
import { onTransactionClient, type SqlClient, type SqlPool } from './sql-pool.js';

/** A statement of a pipelined transaction: its text (or prepared name and text) and values. */
export type PipelinedStatement = pg.QueryConfig;

/** The pg client parts pipelining needs: its pipeline mode (a pool made with `pipeline: true`) and its socket. */
interface PipelineCapableClient {
  pipeline?: boolean;
  connection?: { stream?: { cork?: () => void; uncork?: () => void } };
}

/**
 * Runs `statements` as one transaction in one round trip: BEGIN, every statement and COMMIT are
 * written to the connection at once (one write), and Postgres runs them in order. The statements
 * cannot use each other's results, but each sees what the ones before it wrote and, under READ
 * COMMITTED, takes its snapshot when it starts — after the locks a statement before it took. A
 * transaction of four statements (BEGIN, the locks, the insert, COMMIT) thus waits for the
 * database once instead of four times, each wait a turn of a busy event loop (bench/README.md).
 *
 * When a statement fails, Postgres refuses the rest and turns the COMMIT into a ROLLBACK: the
 * first error is thrown, as inTransaction throws it (a blip is UnavailableError, its connection
 * dropped). The pool must be made with `pipeline: true` (createSqlPool's `pipeline`); on any
 * other the statements run one after the other, in the same transaction.
 */
export async function inPipelinedTransaction(pool: SqlPool, statements: readonly PipelinedStatement[]): Promise<pg.QueryResult[]> {
  // On a failure the pipelined COMMIT has ended the transaction already; onTransactionClient's
  // ROLLBACK matters only when the statements were not all sent.
  return onTransactionClient(pool, async (client) => {
    const settled = await Promise.allSettled(send(client, statements));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    const results = settled.map((outcome) => (outcome as PromiseFulfilledResult<pg.QueryResult>).value);
    const commit = results.pop()!;
    // A COMMIT of a transaction that failed answers ROLLBACK without an error of its own.
    if (commit.command !== 'COMMIT') throw new Error(`the pipelined transaction ended with ${commit.command}, not COMMIT`);
    return results.slice(1);
  });
}

/** BEGIN, the statements and COMMIT, one promise each: on a pipelined client in one write, else one after the other. */
function send(client: SqlClient, statements: readonly PipelinedStatement[]): Promise<pg.QueryResult>[] {
  const capable = client as unknown as PipelineCapableClient;
  if (!capable.pipeline) {
    const results: Promise<pg.QueryResult>[] = [];
    let previous: Promise<unknown> = Promise.resolve();
    for (const statement of ['BEGIN', ...statements, 'COMMIT']) {
      // Each waits for the one before; a failure fails the rest without running them.
      const next = previous.then(() => client.query(statement as pg.QueryConfig));
      results.push(next);
      previous = next;
    }
    return results;
  }
  // pg writes each query as it is queued; corked, the socket sends them all in one write.
  const stream = capable.connection?.stream;
  stream?.cork?.();
  try {
    return [client.query('BEGIN'), ...statements.map((statement) => client.query(statement)), client.query('COMMIT')];
  } finally {
    stream?.uncork?.();
  }
}
