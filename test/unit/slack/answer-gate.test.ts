import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAnswerGate } from "../../../src/slack/answer-gate.ts";

/** The gate on fake timers: time moves only when the test says so. */
describe("answer gate: acks first, answers right after", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const gate = (maxWaitMs = 1_000) =>
    createAnswerGate({ quietMs: 5, maxWaitMs, now: () => Date.now() });

  it("gives a turn at once when no request is coming in", async () => {
    const g = gate();
    let done = false;
    void g.turn().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it("holds answers while a burst arrives, then lets them go one per loop turn, in order", async () => {
    const g = gate();
    const order: number[] = [];
    g.noteRequest();
    for (const n of [1, 2, 3]) void g.turn().then(() => order.push(n));
    for (let ms = 0; ms < 20; ms += 2) {
      await vi.advanceTimersByTimeAsync(2);
      g.noteRequest();
      expect(order).toEqual([]);
    }
    // 4 ms after the last request: still inside the quiet window
    await vi.advanceTimersByTimeAsync(4);
    expect(order).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(order.length).toBeGreaterThanOrEqual(1);
    await vi.advanceTimersByTimeAsync(5);
    expect(order).toEqual([1, 2, 3]);
  });

  it("never starves an answer: a turn comes after maxWaitMs even if requests never stop", async () => {
    const g = gate(100);
    let done = false;
    void g.turn().then(() => {
      done = true;
    });
    for (let ms = 0; ms < 98; ms += 1) {
      g.noteRequest();
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(done).toBe(false);
    for (let ms = 0; ms < 5; ms += 1) {
      g.noteRequest();
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(done).toBe(true);
  });
});
