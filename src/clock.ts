/** Time as a dependency, so tests and the simulator can move it by hand. */
export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}

/**
 * Timers as a dependency: a task `delayMs` from now. Tests fire them by moving a ManualClock
 * (test/support/manual-timers.ts), so work that must go on while time passes (a heartbeat) can
 * be checked without sleeping.
 */
export interface Timers {
  after(delayMs: number, task: () => void): { cancel(): void };
}

/** real timers that never keep the process alive on their own */
export const systemTimers: Timers = {
  after(delayMs, task) {
    const timer = setTimeout(task, delayMs);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};
