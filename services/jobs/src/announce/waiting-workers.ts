import type { JobQueueName } from '@atelier/nats';

/** Free slots a waiting worker offered, per dispatch queue. */
export type QueueSlots = Readonly<Record<JobQueueName, number>>;

/** A worker waiting in AwaitJobs; T is what it is answered with (the jobs handed over to it). */
export interface WaitingWorker {
  readonly workerId: string;
  readonly slots: QueueSlots;
}

interface Waiter<T> extends WaitingWorker {
  /** waiting: in line; reserved: jobs are being claimed for it; answered: its call is over. */
  state: 'waiting' | 'reserved' | 'answered';
  /** Its caller gave up the call: jobs claimed for it now must be released. */
  gone: boolean;
  /** Its wait is over: answered empty unless jobs are being claimed for it. */
  expired: boolean;
  answer(items: readonly T[]): void;
}

/** Dispatches given to one waiting worker, to be claimed for it. */
export interface Assignment<Item> {
  readonly worker: WaitingWorker;
  readonly items: readonly Item[];
}

/**
 * The workers waiting at this replica for jobs (AwaitJobs), in the order they came. The hand-over
 * lane assigns the dispatches of a commit to them (assign), claims those jobs and answers each
 * worker with what it claimed (settle). A worker is answered once: with its jobs, or empty when its
 * wait ends. A worker whose call ends while jobs are being claimed for it is not answered, and
 * settle tells the lane to release what it claimed.
 */
export class WaitingWorkers<T> {
  private readonly line: Waiter<T>[] = [];
  private closed = false;

  /** How many workers wait now. */
  get size(): number {
    return this.line.length;
  }

  /**
   * Waits until jobs are handed over to this worker (at most `slots` of each queue), the wait is
   * over (answers empty), or the signal fires (the caller gave up: answers empty, and jobs claimed
   * for it meanwhile are released by the lane).
   */
  wait(workerId: string, slots: QueueSlots, waitMs: number, signal: AbortSignal): Promise<T[]> {
    if (this.closed) return Promise.resolve([]);
    return new Promise((resolve) => {
      const finish = (items: readonly T[]) => {
        if (waiter.state === 'answered') return;
        waiter.state = 'answered';
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.remove(waiter);
        resolve([...items]);
      };
      const waiter: Waiter<T> = { workerId, slots, state: 'waiting', gone: false, expired: false, answer: finish };
      // A wait that ends while jobs are being claimed for it gets them (settle answers it).
      const timer = setTimeout(() => {
        waiter.expired = true;
        if (waiter.state === 'waiting') finish([]);
      }, waitMs);
      const onAbort = () => {
        waiter.gone = true;
        if (waiter.state === 'waiting') finish([]);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.line.push(waiter);
    });
  }

  /**
   * Gives the dispatches to waiting workers, first come first served, each no more than its free
   * slots of the item's queue; the workers given some are reserved (out of line) until settle.
   * Items no worker has room for are left out.
   */
  assign<Item>(items: readonly Item[], queueOf: (item: Item) => JobQueueName): Assignment<Item>[] {
    const given = new Map<Waiter<T>, Item[]>();
    const taken = new Map<Waiter<T>, Record<JobQueueName, number>>();
    for (const item of items) {
      const queue = queueOf(item);
      const waiter = this.line.find((candidate) => (taken.get(candidate)?.[queue] ?? 0) < candidate.slots[queue]);
      if (!waiter) continue;
      const counts = taken.get(waiter) ?? { interactive: 0, background: 0 };
      counts[queue] += 1;
      taken.set(waiter, counts);
      const mine = given.get(waiter) ?? [];
      mine.push(item);
      given.set(waiter, mine);
    }
    for (const waiter of given.keys()) {
      waiter.state = 'reserved';
      this.remove(waiter);
    }
    return [...given].map(([worker, assigned]) => ({ worker, items: assigned }));
  }

  /**
   * Answers a reserved worker with the jobs claimed for it, or puts it back in line first when none
   * was (other workers, or its own duplicates, took them). Answers false when the worker had given
   * up its call: nobody runs these jobs, and the caller must release them.
   */
  settle(worker: WaitingWorker, claimed: readonly T[]): boolean {
    const waiter = worker as Waiter<T>;
    if (waiter.state !== 'reserved') throw new Error('settle of a worker that was not assigned jobs');
    if (waiter.gone) {
      waiter.answer([]);
      return false;
    }
    if (claimed.length > 0 || waiter.expired || this.closed) {
      waiter.answer(claimed);
      return true;
    }
    waiter.state = 'waiting';
    this.line.unshift(waiter);
    return true;
  }

  /** Answers every waiting worker empty (this replica is stopping); later waits are answered at once. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.line]) waiter.answer([]);
  }

  private remove(waiter: Waiter<T>): void {
    const at = this.line.indexOf(waiter);
    if (at >= 0) this.line.splice(at, 1);
  }
}
