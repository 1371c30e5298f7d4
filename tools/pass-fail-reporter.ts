import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Prints one plain summary line CI can read: `N passed, N failed, N skipped`, plus the count of
 * unhandled errors when there are any (they fail the run too); then a `failed: ` line for each
 * failed test (file, name, the error's first line), which scripts/test.sh repeats at the very end
 * of the run, where a reader of a long CI log looks first.
 */
export default class PassFailReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') {
          failed += 1;
          failures.push(`${module.moduleId} > ${test.fullName}: ${firstLine(result.errors?.[0]?.message)}`);
        } else skipped += 1;
      }
      if (module.state() === 'failed' && !module.children.size) {
        failed += 1; // a file that failed to load
        failures.push(`${module.moduleId}: ${firstLine(module.errors()[0]?.message)}`);
      }
    }
    for (const error of unhandledErrors) failures.push(`unhandled error: ${firstLine(error.message)}`);
    const errors = unhandledErrors.length ? `, ${unhandledErrors.length} unhandled errors` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped${errors}\n`);
    for (const failure of failures) process.stdout.write(`failed: ${failure.replace(process.cwd() + '/', '')}\n`);
  }
}

function firstLine(message: string | undefined): string {
  return (message ?? 'no message').split('\n')[0]!.slice(0, 300);
}
