import { randomBytes } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
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
 * The claim takes the lease in one statement (issue 37, item 6: a read, then a start, let two
 * processes starting together both pass). A lease left by a process that crashed is no reason to
 * stop: it runs out within its TTL. So a live lease of another holder is watched until just past
 * its expiry: renewed (its holder is alive), this process refuses; run out, this one takes it. A
 * holder known gone (same kernel boot, same PID namespace, its pid not running the process that
 * started then) is taken over at once. A host name alone says nothing: two containers can share
 * one. SQLite on a network file system is refused outright (src/app/sqlite-volume.ts).
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
 * This process's lease on its SQLite file was taken over or ran out while it ran (a process
 * paused past its lease, SIGSTOP or a frozen VM, wakes to find another one on the file). On
 * PostgreSQL a deposed replica serves commands as a follower; on SQLite there is no second
 * replica, so it must stop, and the orchestrator starts it again, when its claim decides.
 */
export class SqliteFileLost extends Error {
  override readonly name = "SqliteFileLost";

  constructor(path: string, reason: "lost" | "expired") {
    super(
      `this process's lease on the SQLite file ${path} was ${reason === "lost" ? "taken by another process" : "let run out"} while it ran (paused past LEADER_LEASE_TTL_MS?): SQLite serves one process, so this one exits and leaves the file to the one that holds it`,
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
  /** this process's holder id (soleReplicaHolder()) */
  holder: string;
  /** the SQLite file, for the message */
  path: string;
  clock: Clock;
  timers: Timers;
  /** the lease's time to live (LEADER_LEASE_TTL_MS): the claim takes it for this long */
  ttlMs: number;
  /** waited past the other lease's expiry, for a late renewal in flight; default 1 s */
  graceMs?: number;
  /** whether the holder is known to be gone; default holderGoneOnThisHost of this process */
  holderGone?: (holder: string) => boolean;
}

/**
 * Who a process is, beyond its host name, which two containers can share (host networking, a
 * compose `hostname:`, two hostNetwork pods on a node, a StatefulSet pod re-made while the old one
 * runs): the kernel's boot (/proc/sys/kernel/random/boot_id), the PID namespace
 * (/proc/self/ns/pid) in which `pid` means something, and the process's start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot), which a reused pid does not share. Off Linux these are
 * unknown, and a holder is then never known gone: its lease must run out.
 */
export interface ProcessIdentity {
  host: string;
  pid: number;
  bootId?: string;
  pidNamespace?: string;
  startTime?: string;
}

export interface ThisProcess extends ProcessIdentity {
  /** the start time of the process `pid` in this PID namespace; undefined when none runs */
  startTimeOf: (pid: number) => string | undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** field 22 of /proc/<pid>/stat; the name (field 2) is in parentheses and may hold spaces */
function startTimeOf(pid: number | "self"): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): field 22 is fields[19]
  return fields[19];
}

function pidNamespace(): string | undefined {
  try {
    // "pid:[4026531836]"
    return /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
  } catch {
    return undefined;
  }
}

export function thisProcess(): ThisProcess {
  return {
    host: hostname(),
    pid: process.pid,
    bootId: readText("/proc/sys/kernel/random/boot_id"),
    pidNamespace: pidNamespace(),
    startTime: startTimeOf("self"),
    startTimeOf: (pid) => startTimeOf(pid),
  };
}

/**
 * This process's holder id on a SQLite file: `host/pid/random` as every replica's
 * (src/app/leadership.ts), then `@boot id/PID namespace/start time` where known.
 */
export function soleReplicaHolder(self: ProcessIdentity = thisProcess()): string {
  const base = `${self.host}/${self.pid}/${randomBytes(4).toString("hex")}`;
  const { bootId, pidNamespace, startTime } = self;
  if (!bootId || !pidNamespace || !startTime) return base;
  return `${base}@${bootId}/${pidNamespace}/${startTime}`;
}

/**
 * Gone: the holder ran under this very kernel boot and in this PID namespace, so its pid names
 * the same process here, and no process of that pid runs now, or one runs that started at another
 * time (the pid was reused; this process's own pid included, a restart as PID 1). Anything else
 * (another host, another container with the same host name, an id without the identity: a bot
 * from before, or one off Linux) is never known gone from here: only its lease running out says so.
 */
export function holderGoneOnThisHost(holder: string, self: ThisProcess = thisProcess()): boolean {
  const match = /^([^/]+)\/(\d+)\/[^/@]*@([^/]+)\/(\d+)\/(\d+)$/.exec(holder);
  if (!match || !self.bootId || !self.pidNamespace) return false;
  const [, host, pidText, bootId, pidNamespace, startTime] = match;
  if (host !== self.host || bootId !== self.bootId || pidNamespace !== self.pidNamespace) {
    return false;
  }
  const pid = Number(pidText);
  const running = pid === self.pid ? self.startTime : self.startTimeOf(pid);
  return running !== startTime;
}

/**
 * Claims the file at start, atomically: the lease is taken (one statement, so of two processes
 * starting together one wins) or this process stops. A live lease of another holder is taken
 * over at once when that holder is known gone, else watched until just past its expiry and
 * asked for again: renewed meanwhile, this process refuses.
 */
export async function claimSqliteFile(options: SoleReplicaOptions): Promise<void> {
  const { lease, holder, clock, timers, ttlMs } = options;
  if ((await lease.tryAcquire(holder, ttlMs, clock.now())) !== undefined) return;
  const seen = await lease.current(clock.now());
  if (seen !== undefined && (options.holderGone ?? holderGoneOnThisHost)(seen.holder)) {
    // its lease ends now (only that holder's, with that token), so this process leads at once
    await lease.release(seen.holder, seen.token);
  } else if (seen !== undefined) {
    const waitMs = Math.max(0, seen.expiresAt - clock.now()) + (options.graceMs ?? 1_000);
    await new Promise<void>((resolve) => timers.after(waitMs, resolve));
  }
  if ((await lease.tryAcquire(holder, ttlMs, clock.now())) !== undefined) return;
  const after = await lease.current(clock.now());
  throw new SqliteFileShared(options.path, after?.holder ?? seen?.holder ?? "unknown");
}
