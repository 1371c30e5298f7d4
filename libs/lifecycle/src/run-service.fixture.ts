// Run by run-service.test.ts as a process of its own, the way main.ts runs a service: a service
// that says what happens to it on stdout (FIXTURE_START=fail makes its start fail).
import { int, oneOf, str } from '@atelier/config';
import { runService } from './index.js';

const say = (line: string): void => {
  process.stdout.write(`fixture: ${line}\n`);
};

await runService({
  name: 'fixture',
  telemetry: { shutdown: async () => say('telemetry flushed') },
  spec: {
    LOG_LEVEL: oneOf(['info', 'warn'], 'info'),
    FIXTURE_START: str({ default: 'ok' }),
    FIXTURE_GRACE_MS: int({ default: 1_000, min: 0, max: 60_000 }),
  },
  shutdown: { drainVariable: 'FIXTURE_GRACE_MS', marginMs: 500 },
  async start(config, logger) {
    if (config.FIXTURE_START === 'fail') throw new Error('the port is taken');
    logger.info({}, 'fixture serving');
    say('started');
    // What a listening server does: keep the process alive until it is stopped. Without it the
    // fixture may end on its own, exit code 0, before the test's SIGTERM arrives.
    const serving = setInterval(() => {}, 60_000);
    return {
      stop: async () => {
        clearInterval(serving);
        say('stopped');
      },
    };
  },
});
// runService has returned: its SIGTERM handler is in place, so the test may signal now.
say('serving');
