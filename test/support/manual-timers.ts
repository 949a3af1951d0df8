import type { Timers } from "../../src/app/leader.ts";
import type { ManualClock } from "../../src/clock.ts";

interface Entry {
  at: number;
  order: number;
  task: () => void;
}

/**
 * Timers that fire only when a test moves its ManualClock through them: one instance per
 * simulated process, all on one clock. A paused instance (a process stopped by SIGSTOP) keeps its
 * tasks until it is resumed and time moves again.
 */
export class ManualTimers implements Timers {
  paused = false;
  private pending: Entry[] = [];
  private static order = 0;

  constructor(readonly clock: ManualClock) {}

  after(delayMs: number, task: () => void): { cancel(): void } {
    const entry = { at: this.clock.now() + delayMs, order: ManualTimers.order++, task };
    this.pending.push(entry);
    return {
      cancel: () => {
        this.pending = this.pending.filter((other) => other !== entry);
      },
    };
  }

  /** moves the clock by `ms` through this instance's tasks; see advanceTogether */
  advance(ms: number, settle?: () => Promise<void>): Promise<void> {
    return advanceTogether([this], ms, settle);
  }

  /**
   * when this instance's waiting tasks are due, earliest first: a test's settle can wait for a
   * task to be armed again (a heartbeat re-arms only after its write is answered)
   */
  dueTimes(): number[] {
    return this.pending.map((entry) => entry.at).sort((a, b) => a - b);
  }

  /** the earliest task due by `until`, taken off the list */
  takeDue(until: number): Entry | undefined {
    const due = this.peekDue(until);
    if (due !== undefined) this.pending = this.pending.filter((entry) => entry !== due);
    return due;
  }

  peekDue(until: number): Entry | undefined {
    if (this.paused) return undefined;
    return this.pending
      .filter((entry) => entry.at <= until)
      .sort((a, b) => a.at - b.at || a.order - b.order)[0];
  }
}

/**
 * Moves the shared clock by `ms`, running every due task of the running instances in due order,
 * each with the clock at its due time (or later, for a task overdue since a pause). After each
 * task, `settle` lets what it started finish (e.g. an elector's renewal round trip), so the
 * clock never runs ahead of a task still in flight.
 */
export async function advanceTogether(
  all: ManualTimers[],
  ms: number,
  settle: () => Promise<void> = async () => {},
): Promise<void> {
  const clock = all[0]!.clock;
  const target = clock.now() + ms;
  for (;;) {
    const next = all
      .map((timers) => ({ timers, entry: timers.peekDue(target) }))
      .filter((candidate) => candidate.entry !== undefined)
      .sort((a, b) => a.entry!.at - b.entry!.at || a.entry!.order - b.entry!.order)[0];
    if (next === undefined) break;
    const entry = next.timers.takeDue(target)!;
    clock.set(Math.max(clock.now(), entry.at));
    entry.task();
    await settle();
  }
  clock.set(Math.max(clock.now(), target));
}
