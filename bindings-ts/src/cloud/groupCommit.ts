// Group commit: batches that arrive while a commit is running are stored together in the next
// transaction, so a thousand devices syncing at once cost a few hundred fsyncs, not a thousand
// or more. Each caller still learns its own result only after the transaction holding its
// batch has committed, so no acknowledgement ever goes out for an uncommitted batch.
import type { WireEvent } from './protocol';
import { isStoreUnreachable } from './storeHealth';

export interface PendingBatch {
  deviceId: string;
  stream: number;
  events: readonly WireEvent[];
  now: number;
}

interface Waiter extends PendingBatch {
  resolve(added: number): void;
  reject(err: unknown): void;
}

/**
 * Runs `commit` over queued batches, at most `parallel` commits at a time. `commit` stores all
 * the batches it is given in one transaction and returns the number of new events of each.
 * If a group fails, each batch of it is retried alone, so one bad batch fails only its sender;
 * but not when the store cannot be reached, where every retry would wait for its own timeout.
 */
export class GroupCommitter {
  private queue: Waiter[] = [];
  private running = 0;

  constructor(
    private readonly commit: (batches: PendingBatch[]) => Promise<number[]>,
    private readonly parallel = 1,
    private readonly maxGroup = 256,
  ) {}

  store(b: PendingBatch): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ ...b, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    while (this.running < this.parallel && this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroup);
      this.running++;
      void this.run(group).finally(() => {
        this.running--;
        this.kick();
      });
    }
  }

  private async run(group: Waiter[]): Promise<void> {
    try {
      const counts = await this.commit(group);
      group.forEach((w, i) => w.resolve(counts[i]));
    } catch (err) {
      if (group.length === 1 || isStoreUnreachable(err)) {
        for (const w of group) w.reject(err);
        return;
      }
      for (const w of group) {
        try {
          const [n] = await this.commit([w]);
          w.resolve(n);
        } catch (e) {
          w.reject(e);
        }
      }
    }
  }
}
