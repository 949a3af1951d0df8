import type { Clock } from "../clock.ts";
import type { LeaderLease } from "../store/lease.ts";

/**
 * Keeps this replica's claim on the leader lease (src/store/lease.ts) and says when it starts or
 * stops leading, so the wiring can start or stop the singletons (poll, outbox sender, launch
 * tracker, scheduled jobs); src/app/bot.ts wires it (issue 12).
 *
 * It tries to take or renew the lease at start and every `renewEveryMs`. It calls
 * `onDeposed` at once, before anything else happens, when:
 * - a renewal fails (PostgreSQL unreachable: this replica can no longer prove it leads);
 * - the lease is held by another replica, or came back with a new token (it had expired, e.g.
 *   the process was paused past it, so writes made under the old token are already refused);
 * - the lease's expiry passes with no successful renewal, even while a renewal is still waiting
 *   on the network: a timer of its own fires at the expiry this replica last secured.
 * `onElected(token)` and `onDeposed(reason)` alternate, never overlap, and start with
 * `onElected`; the token is what the singletons pass to `assertFenced`.
 */
export interface Timers {
  /** runs `task` once, `delayMs` from now */
  after(delayMs: number, task: () => void): { cancel(): void };
}

export const systemTimers: Timers = {
  after(delayMs, task) {
    const timer = setTimeout(task, delayMs);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

export type DeposedReason = "renewal-failed" | "lost" | "expired" | "stopped";

export interface LeaderElectorOptions {
  lease: LeaderLease;
  /** this replica, unique among them (e.g. pod name and a random suffix) */
  holder: string;
  ttlMs: number;
  /** well under ttlMs (a third or less), so one late renewal does not cost the lease */
  renewEveryMs: number;
  clock: Clock;
  timers: Timers;
  onElected(token: number): void | Promise<void>;
  onDeposed(reason: DeposedReason): void | Promise<void>;
  /** a renewal or release failed, or a callback threw */
  onError?(error: unknown): void;
}

export interface LeaderElector {
  /** takes the lease if it can, then keeps renewing */
  start(): Promise<void>;
  /** stops renewing; a leader is deposed ("stopped") and then releases the lease for the next */
  stop(): Promise<void>;
  /** the token while leading, else undefined */
  token(): number | undefined;
  /** while leading: the token, when the lease was last secured and until when (epoch ms) */
  lease(): { token: number; securedAt: number; expiresAt: number } | undefined;
  /** resolves once no renewal and no callback is in flight */
  settled(): Promise<void>;
}

export function createLeaderElector(options: LeaderElectorOptions): LeaderElector {
  const { lease, holder, ttlMs, renewEveryMs, clock, timers } = options;
  if (!(renewEveryMs > 0 && renewEveryMs < ttlMs)) {
    throw new Error(`renewEveryMs (${renewEveryMs}) must be above 0 and below ttlMs (${ttlMs})`);
  }
  const reportError = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // the error reporter itself failed: nothing left to tell
    }
  };

  let leading: { token: number; securedAt: number; expiresAt: number } | undefined;
  let stopped = true;
  let nextRenewal: { cancel(): void } | undefined;
  let expiryWatch: { cancel(): void } | undefined;
  let renewal: Promise<void> = Promise.resolve();
  // onElected/onDeposed run one after the other, in the order the decisions were taken
  let callbacks: Promise<void> = Promise.resolve();

  const enqueue = (callback: () => void | Promise<void>): void => {
    callbacks = callbacks.then(async () => {
      try {
        await callback();
      } catch (error) {
        reportError(error);
      }
    });
  };

  const depose = (reason: DeposedReason): void => {
    if (leading === undefined) return;
    leading = undefined;
    expiryWatch?.cancel();
    expiryWatch = undefined;
    enqueue(() => options.onDeposed(reason));
  };

  const elect = (token: number, securedAt: number): void => {
    const expiresAt = securedAt + ttlMs;
    if (leading !== undefined && leading.token !== token) depose("lost");
    const isNew = leading === undefined;
    leading = { token, securedAt, expiresAt };
    expiryWatch?.cancel();
    expiryWatch = timers.after(Math.max(0, expiresAt - clock.now()), () => {
      if (leading !== undefined && clock.now() >= leading.expiresAt) depose("expired");
    });
    if (isNew) enqueue(() => options.onElected(token));
  };

  const renew = async (): Promise<void> => {
    const now = clock.now();
    // a lease already past its expiry is lost whatever the renewal below says
    if (leading !== undefined && now >= leading.expiresAt) depose("expired");
    let token: number | undefined;
    try {
      token = await lease.tryAcquire(holder, ttlMs, now);
    } catch (error) {
      reportError(error);
      depose("renewal-failed");
      return;
    }
    if (stopped) return;
    if (token === undefined) depose("lost");
    // the expiry counts from when the request left, not when the answer came
    else elect(token, now);
  };

  const scheduleRenewal = (): void => {
    nextRenewal = timers.after(renewEveryMs, () => {
      renewal = renew().finally(() => {
        if (!stopped) scheduleRenewal();
      });
    });
  };

  return {
    async start() {
      if (!stopped) return;
      stopped = false;
      renewal = renew();
      await renewal;
      if (!stopped) scheduleRenewal();
      await callbacks;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      nextRenewal?.cancel();
      const held = leading;
      // at once, even while a renewal waits on the network (its answer is then ignored)
      depose("stopped");
      await callbacks;
      await renewal;
      if (held !== undefined) {
        // after onDeposed: the singletons have stopped before another replica may start them
        await lease.release(holder, held.token).catch(reportError);
      }
    },
    token() {
      return leading?.token;
    },
    lease() {
      return leading && { ...leading };
    },
    async settled() {
      await renewal;
      await callbacks;
    },
  };
}
