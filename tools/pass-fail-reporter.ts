import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Prints one plain summary line CI can read: `N passed, N failed, N skipped`, plus the count of
 * unhandled errors when there are any (they fail the run too).
 */
export default class PassFailReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.state() === 'failed' && !module.children.size) failed += 1; // a file that failed to load
    }
    const errors = unhandledErrors.length ? `, ${unhandledErrors.length} unhandled errors` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped${errors}\n`);
  }
}
