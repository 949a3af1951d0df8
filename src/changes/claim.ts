import { type Clock, systemTimers, type Timers } from "../clock.ts";
import type { Logger } from "../log.ts";
import { STUCK_EXECUTING_MS } from "../model/change.ts";
import type { ChangeStore } from "../store/changes.ts";

/** how often a sender refreshes its claim's heartbeat while it works */
export const HEARTBEAT_EVERY_MS = 20_000;
/**
 * The room a sender keeps below the lease holder's stuck bound: it sends only while its last good
 * beat was issued less than STUCK_EXECUTING_MS minus this ago (by its own clock, from before the
 * statement went out, so a slow statement counts against it), since from then on the lease holder
 * may take the claim over; the margin covers the request's own way to Palette.
 */
export const BEAT_MARGIN_MS = 30_000;
/** a sender whose last good beat is older than this sends nothing */
export const SEND_BEAT_BOUND_MS = STUCK_EXECUTING_MS - BEAT_MARGIN_MS;

/** the sender's claim was taken over (its heartbeat had stopped): it sends nothing */
export class ClaimLost extends Error {
  constructor(readonly changeId: number) {
    super(`change ${changeId} was taken over by the lease holder; not sent from here`);
  }
}

/**
 * The sender's last good beat is too old to send safely (the store was out of reach, or a beat
 * took too long): the lease holder may take the claim over at any moment, so nothing is sent.
 */
export class ClaimStale extends Error {
  constructor(
    readonly changeId: number,
    readonly ageMs: number | undefined,
  ) {
    super(
      ageMs === undefined
        ? `change ${changeId}: no heartbeat recorded; not sent from here`
        : `change ${changeId}: its last heartbeat is ${Math.round(ageMs / 1000)} s old; not sent from here`,
    );
  }
}

export interface HeldClaim {
  /**
   * Immediately before the write: is the row still this sender's? Refreshes the heartbeat in
   * the same statement; throws ClaimLost when the lease holder took it over.
   */
  fence(): Promise<void>;
  /**
   * Right before a request of the write goes out: throws ClaimStale unless the last good beat
   * was issued within SEND_BEAT_BOUND_MS (by the sender's clock).
   */
  assertFresh(): void;
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
  deps: { timers?: Timers; logger: Logger; clock: Clock },
): HeldClaim {
  const timers = deps.timers ?? systemTimers;
  let timer: { cancel(): void } | undefined;
  let released = false;
  /** when the last beat that landed was issued, by this sender's clock */
  let lastGood: number | undefined;
  /** one beat: true while the row is still this sender's; a landed beat counts from its issue */
  const beat = async (): Promise<boolean> => {
    const issued = deps.clock.now();
    const held = await store.beat(changeId);
    if (held) lastGood = Math.max(lastGood ?? issued, issued);
    return held;
  };
  const arm = () => {
    if (released) return;
    timer = timers.after(HEARTBEAT_EVERY_MS, () => {
      beat().then(
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
      if (!(await beat())) throw new ClaimLost(changeId);
    },
    assertFresh() {
      const age = lastGood === undefined ? undefined : deps.clock.now() - lastGood;
      if (age === undefined || age > SEND_BEAT_BOUND_MS) throw new ClaimStale(changeId, age);
    },
    release() {
      released = true;
      timer?.cancel();
    },
  };
}
