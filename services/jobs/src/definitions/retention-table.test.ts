import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SHIPPED_DEFINITIONS } from './index.js';

// docs/retention.md is the one table of what each job type keeps and for how long; the
// definitions are what the pruner runs on. They must say the same.
describe('retention periods', () => {
  it('are the table docs/retention.md lists, type for type', () => {
    const doc = readFileSync(new URL('../../../../docs/retention.md', import.meta.url), 'utf8');
    const listed = Object.fromEntries(
      [...doc.matchAll(/^\| `([a-z][a-z0-9_.]+)` +\| (\d+) days? +\| (\d+) days? +\|$/gm)].map((row) => [
        row[1],
        { redactInputsAfterDays: Number(row[2]), deleteInputImageAfterDays: Number(row[3]) },
      ]),
    );
    expect(listed).toEqual(Object.fromEntries(SHIPPED_DEFINITIONS.map((definition) => [definition.jobType, definition.retention])));
  });
});
