// A stand-in for `npm start` (scripts/platform.ts) in tools/platform-supervision.test.ts: the same
// supervisor and signal handling over three small `node -e` services — one that ignores SIGTERM.
// argv[2]: the stop bound in ms. Prints `pids <json>` once all are up; the supervisor's lines follow.
import { onStopSignals } from '../scripts/stop-signals.js';
import { Supervisor } from '../scripts/supervisor.js';
import { nodeService } from './test-support/node-service.js';

const supervisor = new Supervisor({
  // Long enough that a killed service is still waiting for its restart when the test stops all.
  backoff: { baseMs: 60_000, maxMs: 60_000 },
  stableAfterMs: 60_000,
  maxRapidFailures: 3,
  readyTimeoutMs: 10_000,
  readyPollMs: 20,
  stopTimeoutMs: Number(process.argv[2]),
  log: (line) => console.log(line),
});
onStopSignals({ stop: () => supervisor.stop(), force: () => supervisor.kill(), log: (line) => console.log(line) });

for (const [name, behaviour] of [
  ['first', 'serve'],
  ['stubborn', 'ignore-sigterm'],
  ['last', 'serve'],
] as const) {
  await supervisor.start(nodeService(name, behaviour));
}
console.log(`pids ${JSON.stringify(supervisor.status().map((service) => service.pid))}`);
