import { defineConfig } from 'vitest/config';

// The fault suite (`npm run test:chaos`): each file runs the whole platform as processes with a
// nats-server and a database of its own, then kills, stops and restarts parts of it. One file at
// a time: every file already loads both cores, and its timings (a cancel within a second) must
// not suffer from another file's load.
export default defineConfig({
  test: {
    include: ['tools/chaos/**/*.chaos.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    globalSetup: ['./tools/vitest-global-setup.ts'],
    reporters: ['default', './tools/pass-fail-reporter.ts'],
    env: { OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', LOG_LEVEL: 'warn' },
  },
});
