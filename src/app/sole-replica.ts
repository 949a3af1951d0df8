import { hostname } from "node:os";
import type { Clock } from "../clock.ts";
import type { LeaderLease } from "../store/lease.ts";
import type { Timers } from "./leader.ts";

/**
 * A SQLite file serves one bot process. Two on one file (two replicas on a shared volume, a
 * second `docker run` with the same volume, a pod started before the old one stopped) would
 * each run the poll and the sender and post every notification twice; on different hosts
 * SQLite's locks do not even hold over a network volume, and the file can be corrupted. So a
 * process that finds another one's live lease in the file says so and stops (issue 32).
 *
 * A lease left by a process that crashed is no reason to stop: it runs out within its TTL. So a
 * live lease of another holder is watched until just past its expiry: renewed (its holder is
 * alive), this process refuses; run out, this one goes on and takes it. A holder of this very
 * host whose process is gone (a bot killed and started again, as a container restart does) is
 * known dead at once: waiting out its lease would only keep the restarted bot deaf for a TTL.
 */
export class SqliteFileShared extends Error {
  override readonly name = "SqliteFileShared";

  constructor(path: string, holder: string) {
    super(
      `another process holds the SQLite file ${path} (replica ${holder}, its lease renewed while this one waited): SQLite cannot be shared by replicas, above all on different hosts, where its locks do not hold; each would also run the poll and post every notification. Run one replica on SQLite, or set DATABASE_URL (PostgreSQL) for several`,
    );
  }
}

/**
 * Timers that keep the process alive: at start-up nothing else holds the event loop yet, and
 * the leader's own timers are unref'd, so waiting on them would let Node exit with 0.
 */
export const startupTimers: Timers = {
  after(delayMs, task) {
    const timer = setTimeout(task, delayMs);
    return { cancel: () => clearTimeout(timer) };
  },
};

export interface SoleReplicaOptions {
  lease: LeaderLease;
  /** this process's holder id */
  holder: string;
  /** the SQLite file, for the message */
  path: string;
  clock: Clock;
  timers: Timers;
  /** waited past the other lease's expiry, for a late renewal in flight; default 1 s */
  graceMs?: number;
  /** whether the holder is known to be gone; default holderGoneOnThisHost of this process */
  holderGone?: (holder: string) => boolean;
}

export interface ThisProcess {
  host: string;
  pid: number;
  /** whether a process of this id runs on this host */
  alive: (pid: number) => boolean;
}

const thisProcess: ThisProcess = {
  host: hostname(),
  pid: process.pid,
  alive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it runs, as another user
      return (error as NodeJS.ErrnoException).code !== "ESRCH";
    }
  },
};

/**
 * A holder id is `host/pid/random` (replicaId in leadership.ts). Gone: it names this host and a
 * process that no longer runs, or this process's own id, which no live holder can share before
 * this process claims (a container started again is PID 1 each time). Another host's holder is
 * never known gone from here: only its lease running out says so.
 */
export function holderGoneOnThisHost(holder: string, self: ThisProcess = thisProcess): boolean {
  const [host, pidText] = holder.split("/");
  if (host !== self.host || !pidText || !/^\d+$/.test(pidText)) return false;
  const pid = Number(pidText);
  return pid === self.pid || !self.alive(pid);
}

export async function claimSqliteFile(options: SoleReplicaOptions): Promise<void> {
  const { lease, holder, clock, timers } = options;
  const seen = await lease.current(clock.now());
  if (seen === undefined || seen.holder === holder) return;
  if ((options.holderGone ?? holderGoneOnThisHost)(seen.holder)) {
    // its lease ends now (only that holder's, with that token), so this process leads at once
    await lease.release(seen.holder, seen.token);
    return;
  }
  const waitMs = Math.max(0, seen.expiresAt - clock.now()) + (options.graceMs ?? 1_000);
  await new Promise<void>((resolve) => timers.after(waitMs, resolve));
  const after = await lease.current(clock.now());
  if (after !== undefined && after.holder !== holder) {
    throw new SqliteFileShared(options.path, after.holder);
  }
}
