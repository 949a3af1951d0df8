/**
 * The 3-second rule, in one place. Slack drops a request (and a trigger_id dies) unless the app
 * answers within 3 s, so every handler is split in two, as slack-edge does it: a fast part that
 * must answer within a budget, and a lazy part that may go on for as long as Palette takes.
 * `ackWithin` is the fast part's clock.
 */

/** The timer functions `ackWithin` and `InFlight.drain` use; tests pass fakes. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * `work`'s result if it settles within `budgetMs`, else `onSlow()`'s. The work is not cancelled:
 * it goes on, and whoever needs its result later awaits it themselves. A rejection inside the
 * budget rejects, as `work` would.
 */
export async function ackWithin<T, S>(
  budgetMs: number,
  work: Promise<T>,
  onSlow: () => S | Promise<S>,
  timers: Timers = realTimers,
): Promise<T | S> {
  let handle: unknown;
  const slow = new Promise<{ slow: true }>((resolve) => {
    handle = timers.setTimeout(() => resolve({ slow: true }), budgetMs);
  });
  try {
    const first = await Promise.race([
      work.then((value) => ({ slow: false as const, value })),
      slow,
    ]);
    return first.slow ? await onSlow() : first.value;
  } finally {
    timers.clearTimeout(handle);
  }
}
