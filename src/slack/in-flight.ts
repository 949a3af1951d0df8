import { realTimers, type Timers } from "./ack.ts";

/**
 * Work that goes on after its Slack request was answered (a command's lazy part, a launch Palette
 * is slow to accept), kept so a shutdown can wait for it before the store closes: otherwise a
 * cluster Palette created could be left recorded as never launched, or an answer never sent.
 */
export class InFlight {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly timers: Timers = realTimers) {}

  get size(): number {
    return this.pending.size;
  }

  /** Starts `work` and keeps it until it settles. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.track(work());
  }

  /** Keeps a promise already running until it settles. */
  track<T>(promise: Promise<T>): Promise<T> {
    const settled: Promise<void> = promise.then(
      () => {
        this.pending.delete(settled);
      },
      () => {
        this.pending.delete(settled);
      },
    );
    this.pending.add(settled);
    return promise;
  }

  /** Waits for everything running (and started meanwhile); false when `capMs` ran out first. */
  async drain(capMs: number): Promise<boolean> {
    let handle: unknown;
    const cap = new Promise<false>((resolve) => {
      handle = this.timers.setTimeout(() => resolve(false), capMs);
    });
    try {
      while (this.pending.size > 0) {
        const all = Promise.all([...this.pending]).then(() => true as const);
        if (!(await Promise.race([all, cap]))) return false;
      }
      return true;
    } finally {
      this.timers.clearTimeout(handle);
    }
  }
}
