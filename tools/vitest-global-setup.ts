import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { nodeRuntimeProblem } from '../scripts/node-runtime.mjs';
import { adminDatabaseUrl, dropStaleTestDatabases, dropStaleTestStreams, testNatsUrl, TEST_TMPDIR_VARIABLE } from '@atelier/testing';

/**
 * Fails fast with a clear message on another Node major or when Postgres or NATS is down, sweeps
 * crashed runs' leftovers, and gives the run a temporary directory of its own (testTempDirectory),
 * removed when the run ends: the workers it kills never reach their own exit handlers.
 */
export default async function setup(): Promise<() => void> {
  const runtimeProblem = nodeRuntimeProblem('The test suite');
  if (runtimeProblem) throw new Error(runtimeProblem);
  const client = new pg.Client({ connectionString: adminDatabaseUrl(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`tests need PostgreSQL at ${adminDatabaseUrl()} (TEST_DATABASE_ADMIN_URL): ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
  // `npm test` runs one vitest per project, two at a time, and both may sweep the same leftover:
  // deleting a stream the other run has just deleted fails. A second pass no longer lists it.
  await dropStaleTestDatabases().catch(() => dropStaleTestDatabases());
  try {
    await dropStaleTestStreams().catch(() => dropStaleTestStreams());
  } catch (error) {
    throw new Error(`tests need NATS with JetStream at ${testNatsUrl()} (TEST_NATS_URL): ${(error as Error).message}`);
  }
  // Set before any worker starts, so every worker inherits it.
  const runDirectory = mkdtempSync(path.join(tmpdir(), 'atelier-test-run-'));
  process.env[TEST_TMPDIR_VARIABLE] = runDirectory;
  return () => rmSync(runDirectory, { recursive: true, force: true });
}
