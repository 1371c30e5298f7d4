import { describe, expect, it } from 'vitest';
import { WaitingWorkers } from './waiting-workers.js';

type Item = { id: string; queue: 'interactive' | 'background' };
const item = (id: string, queue: Item['queue'] = 'interactive'): Item => ({ id, queue });
const queueOf = (i: Item) => i.queue;
const slots = (interactive: number, background = 0) => ({ interactive, background });
const live = () => new AbortController().signal;

describe('WaitingWorkers', () => {
  it('gives dispatches to the workers first come first served, none beyond a worker’s free slots of the queue', async () => {
    const waiting = new WaitingWorkers<string>();
    const first = waiting.wait('a', slots(2, 0), 10_000, live());
    const second = waiting.wait('b', slots(1, 1), 10_000, live());
    const assigned = waiting.assign([item('1'), item('2'), item('3'), item('4'), item('5', 'background')], queueOf);
    expect(assigned.map(({ worker, items }) => [worker.workerId, items.map((i) => i.id)])).toEqual([
      ['a', ['1', '2']],
      ['b', ['3', '5']],
    ]);
    expect(waiting.size).toBe(0);
    expect(waiting.settle(assigned[0]!.worker, ['job-1', 'job-2'])).toBe(true);
    expect(waiting.settle(assigned[1]!.worker, ['job-3'])).toBe(true);
    expect(await first).toEqual(['job-1', 'job-2']);
    expect(await second).toEqual(['job-3']);
  });

  it('puts a worker whose claims all failed back in line, at its front', async () => {
    const waiting = new WaitingWorkers<string>();
    const first = waiting.wait('a', slots(1), 10_000, live());
    void waiting.wait('b', slots(1), 10_000, live());
    const [assignment] = waiting.assign([item('1')], queueOf);
    expect(waiting.settle(assignment!.worker, [])).toBe(true);
    expect(waiting.size).toBe(2);
    const [again] = waiting.assign([item('2')], queueOf);
    expect(again!.worker.workerId).toBe('a');
    waiting.settle(again!.worker, ['job-2']);
    expect(await first).toEqual(['job-2']);
  });

  it('answers empty when the wait is over, and leaves the line', async () => {
    const waiting = new WaitingWorkers<string>();
    expect(await waiting.wait('a', slots(1), 20, live())).toEqual([]);
    expect(waiting.size).toBe(0);
    expect(waiting.assign([item('1')], queueOf)).toEqual([]);
  });

  it('answers a worker whose wait ended while jobs were claimed for it with those jobs, or empty', async () => {
    const waiting = new WaitingWorkers<string>();
    const answer = waiting.wait('a', slots(1), 20, live());
    const [assignment] = waiting.assign([item('1')], queueOf);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(waiting.settle(assignment!.worker, [])).toBe(true);
    expect(await answer).toEqual([]);
    expect(waiting.size).toBe(0);
  });

  it('answers a worker that gave up empty; one that gave up while jobs were claimed for it makes settle say release them', async () => {
    const waiting = new WaitingWorkers<string>();
    const gone = new AbortController();
    const answer = waiting.wait('a', slots(1), 10_000, gone.signal);
    const [assignment] = waiting.assign([item('1')], queueOf);
    gone.abort();
    expect(waiting.settle(assignment!.worker, ['job-1'])).toBe(false);
    expect(await answer).toEqual([]);

    const early = new AbortController();
    early.abort();
    expect(await waiting.wait('b', slots(1), 10_000, early.signal)).toEqual([]);
    expect(waiting.size).toBe(0);
  });

  it('answers everyone empty when closed, and every later wait at once', async () => {
    const waiting = new WaitingWorkers<string>();
    const reserved = waiting.wait('a', slots(1), 30_000, live());
    const inLine = waiting.wait('b', slots(1), 30_000, live());
    const [assignment] = waiting.assign([item('x')], queueOf);
    waiting.close();
    expect(await inLine).toEqual([]);
    // The one jobs were being claimed for is answered when they are, even with none: never back in line.
    expect(waiting.settle(assignment!.worker, [])).toBe(true);
    expect(await reserved).toEqual([]);
    expect(await waiting.wait('c', slots(1), 30_000, live())).toEqual([]);
    expect(waiting.size).toBe(0);
  });
});
