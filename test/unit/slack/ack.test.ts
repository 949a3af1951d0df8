import { describe, expect, it } from "vitest";
import { ackWithin, type Timers } from "../../../src/slack/ack.ts";
import { InFlight } from "../../../src/slack/in-flight.ts";

/** Timers moved by hand: `fire()` runs every timer that is due, no wall clock involved. */
function manualTimers(): Timers & { fire(): void; pending(): number } {
  const timers = new Map<number, () => void>();
  let next = 0;
  return {
    setTimeout(callback) {
      timers.set(++next, callback);
      return next;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    fire() {
      const due = [...timers.values()];
      timers.clear();
      for (const callback of due) callback();
    },
    pending: () => timers.size,
  };
}

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe("ackWithin", () => {
  it("gives the work's result when it comes within the budget, and clears its timer", async () => {
    const timers = manualTimers();
    const answer = await ackWithin(2_500, Promise.resolve("choices"), () => "slow", timers);
    expect(answer).toBe("choices");
    expect(timers.pending()).toBe(0);
  });

  it("gives onSlow's answer when the budget runs out first, and the work goes on", async () => {
    const timers = manualTimers();
    const work = deferred<string>();
    const answer = ackWithin(2_500, work.promise, () => "slow", timers);
    timers.fire();
    expect(await answer).toBe("slow");
    work.resolve("late");
    expect(await work.promise).toBe("late");
  });

  it("rejects as the work does when it fails within the budget", async () => {
    const timers = manualTimers();
    await expect(
      ackWithin(2_500, Promise.reject(new Error("palette down")), () => "slow", timers),
    ).rejects.toThrow("palette down");
    expect(timers.pending()).toBe(0);
  });
});

describe("InFlight", () => {
  it("drains once everything running (and started meanwhile) settled; failures count as settled", async () => {
    const inFlight = new InFlight(manualTimers());
    const first = deferred<void>();
    const second = deferred<void>();
    void inFlight.run(() => first.promise);
    void inFlight.track(second.promise.catch(() => undefined));
    expect(inFlight.size).toBe(2);
    const drained = inFlight.drain(5_000);
    first.resolve();
    second.reject(new Error("boom"));
    expect(await drained).toBe(true);
    expect(inFlight.size).toBe(0);
  });

  it("gives up after its cap, without waiting on the wall clock", async () => {
    const timers = manualTimers();
    const inFlight = new InFlight(timers);
    void inFlight.run(() => new Promise(() => undefined));
    const drained = inFlight.drain(5_000);
    timers.fire();
    expect(await drained).toBe(false);
    expect(inFlight.size).toBe(1);
  });
});
