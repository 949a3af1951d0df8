import { systemTimers, type Timers } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { ChangeStore } from "../store/changes.ts";

/** how often a sender refreshes its claim's heartbeat while it works */
export const HEARTBEAT_EVERY_MS = 20_000;

/** the sender's claim was taken over (its heartbeat had stopped): it sends nothing */
export class ClaimLost extends Error {
  constructor(readonly changeId: number) {
    super(`change ${changeId} was taken over by the lease holder; not sent from here`);
  }
}

export interface HeldClaim {
  /**
   * Immediately before the write: is the row still this sender's? Refreshes the heartbeat in
   * the same statement; throws ClaimLost when the lease holder took it over.
   */
  fence(): Promise<void>;
  /** the sender is done (or gave up): the heartbeat stops */
  release(): void;
}

/**
 * A claimed change's heartbeat (issue 31, item 4): while its sender reads, mints a key, waits
 * out Palette's Retry-After or waits on a slow write, the row says it is still at work, so the
 * lease holder reconciles only a claim whose sender stopped (src/changes/follow.ts), never one
 * still on its way. A beat that finds the row taken over stops beating; `fence` is the check
 * just before the write, so a sender that lost its claim sends nothing.
 */
export function holdClaim(
  store: ChangeStore,
  changeId: number,
  deps: { timers?: Timers; logger: Logger },
): HeldClaim {
  const timers = deps.timers ?? systemTimers;
  let timer: { cancel(): void } | undefined;
  let released = false;
  const arm = () => {
    if (released) return;
    timer = timers.after(HEARTBEAT_EVERY_MS, () => {
      store.beat(changeId).then(
        (held) => {
          if (held) arm();
          else deps.logger.warn({ changeId }, "change claim taken over: heartbeat stopped");
        },
        (error: unknown) => {
          // the store may come back before the heartbeat is missed: keep beating
          deps.logger.warn({ changeId, err: String(error) }, "change heartbeat not recorded");
          arm();
        },
      );
    });
  };
  arm();
  return {
    async fence() {
      if (!(await store.beat(changeId))) throw new ClaimLost(changeId);
    },
    release() {
      released = true;
      timer?.cancel();
    },
  };
}
