import { defineConfig } from 'vitest/config';

// Integration tests create their own database per file, so files may run in parallel; two
// workers match this machine's two cores.
export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'libs/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'tools/**/*.test.ts'],
    // The fault suite runs on its own (npm run test:chaos, vitest.chaos.config.ts).
    exclude: ['**/node_modules/**', '**/*.chaos.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['./tools/vitest-global-setup.ts'],
    reporters: ['default', './tools/pass-fail-reporter.ts'],
    env: { OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', LOG_LEVEL: 'warn' },
  },
});
