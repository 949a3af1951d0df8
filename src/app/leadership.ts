import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Clock } from "../clock.ts";
import type { LeaderReport } from "../http/health.ts";
import type { LeaderStats } from "../http/metrics.ts";
import type { Logger } from "../log.ts";
import { FencedOut, type LeaderLease } from "../store/lease.ts";
import type { SqlExecutor } from "../store/sql.ts";
import {
  createLeaderElector,
  type DeposedReason,
  type LeaderElector,
  type Timers,
} from "./leader.ts";
import type { Leadership as ReadinessLeadership } from "./palette-readiness.ts";

/**
 * The singletons of one replica (issue 12): what runs on a timer and writes, so that only the
 * lease holder may run it. Commands, modals, actions and the App Home need no lease: every
 * replica serves them, and their writes are a user's own (claimed by unique rows where two
 * replicas could race).
 */
export interface Singletons {
  /** elected: start the timers (and a first round at once) */
  start(): Promise<void>;
  /** deposed: stop the timers and wait for rounds in progress (their writes are fenced) */
  stop(): Promise<void>;
}

export interface LeadershipOptions {
  lease: LeaderLease;
  /** LEADER_LEASE_TTL_MS, LEADER_RENEW_MS */
  ttlMs: number;
  renewEveryMs: number;
  /**
   * The lease's times are compared across replicas, so this is the wall clock in production;
   * the fence reads it too, so a write is judged by the same clock the lease was taken with
   */
  clock: Clock;
  timers: Timers;
  logger: Logger;
  singletons: Singletons;
  /** default: host name, pid and a random suffix */
  holder?: string;
  /** told after the singletons stopped, whatever the reason (the SQLite bot exits on a lost lease) */
  onDeposed?: (reason: DeposedReason) => void;
}

export interface Leadership {
  readonly holder: string;
  /** takes the lease if it can (then starts the singletons) and keeps renewing or trying */
  start(): Promise<void>;
  /** deposes (the singletons stop), then releases the lease so a follower takes over at once */
  stop(): Promise<void>;
  /**
   * For the singletons' write transactions: throws FencedOut unless this replica leads and the
   * lease still has its token (on PostgreSQL it also holds the lease row until the write ends)
   */
  fence(tx: SqlExecutor): Promise<void>;
  /** for Palette readiness: a follower does not wait for a poll of its own */
  readiness(): ReadinessLeadership;
  /** for `/metrics` */
  stats(): LeaderStats;
  /** for `/readyz` */
  report(): Promise<LeaderReport>;
  /** resolves once no renewal and no start or stop of the singletons is in flight */
  settled(): Promise<void>;
}

/** unique among replicas, and tells an operator which pod it is */
export function replicaId(): string {
  return `${hostname()}/${process.pid}/${randomBytes(4).toString("hex")}`;
}

export function createLeadership(options: LeadershipOptions): Leadership {
  const { lease, clock, logger, singletons } = options;
  const holder = options.holder ?? replicaId();
  /** the token of the term in progress; cleared first when deposed, so late writes are refused */
  let term: number | undefined;
  let followedBefore = false;

  const elector: LeaderElector = createLeaderElector({
    lease,
    holder,
    ttlMs: options.ttlMs,
    renewEveryMs: options.renewEveryMs,
    clock,
    timers: options.timers,
    async onElected(token) {
      term = token;
      logger.info({ holder, token }, "leader lease taken: this replica runs the poll and sender");
      await singletons.start();
    },
    async onDeposed(reason) {
      term = undefined;
      followedBefore = true;
      const level = reason === "stopped" ? "info" : "warn";
      logger[level]({ holder, reason }, "leader lease lost: the poll and sender stop here");
      await singletons.stop();
      options.onDeposed?.(reason);
    },
    onError(error) {
      logger.warn({ err: String(error), holder }, "leader lease: renewal or callback failed");
    },
  });

  const seconds = (ms: number) => Math.max(0, ms) / 1000;

  return {
    holder,
    async start() {
      await elector.start();
      if (elector.token() === undefined) {
        followedBefore = true;
        logger.info({ holder }, "another replica leads: this one serves commands and waits");
      }
    },
    stop: () => elector.stop(),
    settled: () => elector.settled(),
    async fence(tx) {
      const token = term;
      if (token === undefined) throw new FencedOut(lease.name, 0, undefined);
      await lease.assertFenced(tx, token, clock.now());
    },
    readiness: () => ({ leading: elector.token() !== undefined, followedBefore }),
    stats() {
      const held = elector.lease();
      if (!held) return { leading: false, leaseAgeSeconds: 0, expiresInSeconds: 0 };
      const now = clock.now();
      return {
        leading: true,
        leaseAgeSeconds: seconds(now - held.securedAt),
        expiresInSeconds: seconds(held.expiresAt - now),
      };
    },
    async report() {
      const now = clock.now();
      const held = elector.lease();
      if (held) {
        return {
          role: "leader",
          replica: holder,
          leader: holder,
          token: held.token,
          leaseExpiresInSeconds: seconds(held.expiresAt - now),
        };
      }
      const live = await lease.current(now);
      return {
        role: "follower",
        replica: holder,
        ...(live && {
          leader: live.holder,
          token: live.token,
          leaseExpiresInSeconds: seconds(live.expiresAt - now),
        }),
      };
    },
  };
}
