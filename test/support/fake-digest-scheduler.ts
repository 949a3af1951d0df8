import type { DigestScheduler } from "../../src/notify/digest/channel-digest-job.ts";

/** node-cron's place in tests: records what was scheduled; the test fires the ticks. */
export function fakeDigestScheduler() {
  const timers: Array<{
    cron: string;
    timeZone: string;
    tick: () => void | Promise<void>;
    stopped: boolean;
  }> = [];
  const scheduler: DigestScheduler = {
    schedule(cron, timeZone, tick) {
      const timer = { cron, timeZone, tick, stopped: false };
      timers.push(timer);
      return {
        stop() {
          timer.stopped = true;
        },
      };
    },
  };
  const live = () => timers.filter((t) => !t.stopped);
  return {
    scheduler,
    live,
    /** the live timers as `cron|zone` */
    armed: () => live().map((t) => `${t.cron}|${t.timeZone}`),
    /** every live timer ticks at once, as node-cron's would; resolves when their looks end */
    fire: async () => {
      await Promise.all(live().map((t) => t.tick()));
    },
  };
}
