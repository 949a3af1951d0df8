/**
 * Work that goes on after its Slack request was answered (a launch Palette is slow to accept),
 * kept so a shutdown can wait for it before the store closes: otherwise a cluster Palette
 * created could be left recorded as never launched.
 */
export class InFlight {
  private readonly pending = new Set<Promise<void>>();

  get size(): number {
    return this.pending.size;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
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
    let timer: NodeJS.Timeout | undefined;
    const cap = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), capMs);
    });
    try {
      while (this.pending.size > 0) {
        const all = Promise.all([...this.pending]).then(() => true as const);
        if (!(await Promise.race([all, cap]))) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }
}
