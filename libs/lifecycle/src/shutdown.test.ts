import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installShutdownHandlers } from './index.js';

const logger = { info: () => {}, error: () => {} };

function setup(drain: () => Promise<void>, graceMs = 1000) {
  const processLike = new EventEmitter();
  const exits: number[] = [];
  const handle = installShutdownHandlers(drain, { logger, graceMs, processLike, exit: (code) => exits.push(code) });
  return { processLike, exits, handle };
}

describe('lifecycle - two-step shutdown', () => {
  it('drains on the first SIGTERM and exits 0 only after the drain finished', async () => {
    let drained = false;
    const { processLike, exits } = setup(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      drained = true;
    });
    processLike.emit('SIGTERM');
    expect(exits).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(drained).toBe(true);
    expect(exits).toEqual([0]);
  });

  it('treats SIGINT like SIGTERM', async () => {
    const { processLike, exits } = setup(async () => {});
    processLike.emit('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(exits).toEqual([0]);
  });

  it('forces exit 1 on a second signal while draining', () => {
    const { processLike, exits } = setup(() => new Promise(() => {}));
    processLike.emit('SIGTERM');
    processLike.emit('SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('forces exit 1 when the drain outlives the grace period', async () => {
    const { processLike, exits } = setup(() => new Promise(() => {}), 30);
    processLike.emit('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(exits).toEqual([1]);
  });

  it('exits 1 when the drain fails', async () => {
    const { processLike, exits } = setup(async () => {
      throw new Error('db gone');
    });
    processLike.emit('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(exits).toEqual([1]);
  });
});
