import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { EDGE_RISK_KINDS, type EdgeRiskKind, type EdgeRiskSettings } from "../model/edge-risk.ts";
import {
  type RadarReading,
  type RiskSettings,
  repaveRisk,
  riskFingerprint,
  risksOf,
} from "../model/risk.ts";
import type { PaletteApi, Scope } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import { inBulk } from "../palette/priority.ts";
import type { BackupHistory } from "../palette/radar-reads.ts";
import { type RadarCluster, RadarStore } from "../store/radar.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import type { EdgeRiskNotifier } from "./edge-notices.ts";
import { type EdgeRadarPalette, readEdgeRisks } from "./edge-risks.ts";
import type { RiskNotifier } from "./notices.ts";

/**
 * The radar's sweep (issue 28), run by the lease holder: it reads each cluster the poll knows
 * (in PALETTE_PROJECTS or the tenant, not deleted) in turn, the longest unread first: its
 * certificates, profile updates and backup history, three calls at RADAR_CALLS_PER_MINUTE at
 * most, each marked bulk so the client's pacer sends it only behind the poll and people's
 * commands. The fleet's pending repaves are one paged list per scope, read after every
 * reconciliation. Each reading and the risks it implies are remembered in the store; the
 * notifier tells the `risks` channels.
 */

export type RadarPalette = Pick<
  PaletteApi,
  "getCertificates" | "getProfileUpdates" | "getBackupHistory" | "pendingRepavesPage"
>;

/** the calls one cluster's reading costs (each one request when Palette answers at once) */
export const CALLS_PER_CLUSTER = 3;

/** the pace a fleet gets when it needs less: a new risk is seen within hours on a small fleet */
export const MIN_REQUESTS_PER_MINUTE = 30;
/** the operator's cap when RADAR_CALLS_PER_MINUTE is unset (10 a second: a fifth of the 50/s
 * Palette documents on /v1/spectroclusters, and sent only behind the poll and commands) */
export const MAX_REQUESTS_PER_MINUTE = 600;
/** room for the retries a pass meets (a 5xx is tried again, and each try is a request) */
const RETRY_HEADROOM = 1.25;
const DAY_MINUTES = 24 * 60;

/**
 * The sweep's requests a minute: enough for one pass over `fleet` clusters a day (with room for
 * retries), never below MIN_REQUESTS_PER_MINUTE, never above the operator's cap.
 */
export function sweepRequestsPerMinute(fleet: number, cap: number): number {
  if (cap <= 0) return 0;
  const need = Math.ceil((fleet * CALLS_PER_CLUSTER * RETRY_HEADROOM) / DAY_MINUTES);
  return Math.min(cap, Math.max(MIN_REQUESTS_PER_MINUTE, need));
}

/** thrown by the request gate once stop() was called: nothing more goes to Palette */
class RadarStopped extends Error {
  constructor() {
    super("the radar stopped");
  }
}

export interface RadarOptions {
  palette: RadarPalette;
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** PALETTE_PROJECTS; empty = tenant scope */
  projects: string[];
  /**
   * RADAR_CALLS_PER_MINUTE: Palette requests a minute (each try of each call counts); 0 = the
   * sweep does not run (the repave list still does). With `followFleet`, the cap of a pace that
   * follows the fleet's size (sweepRequestsPerMinute); without it, the pace itself.
   */
  callsPerMinute: number;
  /** pace for one pass a day over the clusters in scope, up to callsPerMinute (production) */
  followFleet?: boolean;
  settings: RiskSettings;
  notifier?: RiskNotifier;
  /**
   * the edge fleet's risks (issue 39, item 5): read by readEdge() through the sweep's pacing
   * gate, so within RADAR_CALLS_PER_MINUTE and behind the poll and commands, and told to `risks`
   * channels by their own notifier (keyed by token, host or cluster, not by cluster alone)
   */
  edge?: { palette: EdgeRadarPalette; settings: EdgeRiskSettings; notifier?: EdgeRiskNotifier };
  /** waits between calls; default setTimeout (cut short by stop) */
  sleep?: (ms: number) => Promise<void>;
  /** throws FencedOut when this replica no longer leads (src/store/lease.ts) */
  fence?: (tx: SqlExecutor) => Promise<void>;
  /** clusters picked per look at the store; default 50 */
  batch?: number;
}

export interface RadarStats {
  /** Palette calls the sweep made (the repave list not included) */
  sweepCalls: number;
  /** HTTP requests those calls sent, retries included: what the pace counts */
  sweepRequests: number;
  /** the pace now, requests a minute */
  requestsPerMinute: number;
  /** pages of the repave list read */
  repaveCalls: number;
  clustersRead: number;
  readFailures: number;
  /**
   * the last pending-repave read's time on the store, ms: the list written, deleted clusters
   * forgotten, the repave risks committed and their notices synced (Palette's pages not counted)
   */
  lastRepavesStoreMs?: number;
  /** epoch ms of the last reading committed */
  lastReadAt?: number;
  /** the last edge read: Palette calls made, risks found, reads that failed */
  lastEdgeRead?: { calls: number; risks: number; unread: number };
}

export interface Radar {
  /** runs the sweep until stop() */
  start(): void;
  stop(): Promise<void>;
  /** reads the next `count` due clusters (each once at most), paced; resolves with how many */
  sweep(count: number): Promise<number>;
  /** reads the fleet's pending repaves (every scope, every page) and updates the risks */
  readRepaves(): Promise<void>;
  /** reads the edge fleet's risks (paced as the sweep) and tells the `risks` channels */
  readEdge(): Promise<void>;
  stats(): RadarStats;
}

function backupReading(history: BackupHistory): NonNullable<RadarReading["backup"]> {
  const last = history.runs[0];
  const success = history.runs.find((run) => run.state.toLowerCase() === "completed");
  return {
    policy: history.location !== undefined,
    ...(history.schedule ? { schedule: history.schedule } : {}),
    ...(last
      ? {
          last: {
            state: last.state,
            ...(last.at !== undefined ? { at: last.at } : {}),
            ...(last.message ? { message: last.message } : {}),
          },
        }
      : {}),
    ...(success?.at !== undefined ? { lastSuccessAt: success.at } : {}),
  };
}

/** the edge kinds read completely: only those notices may end */
function settledKinds(unread: ReadonlySet<EdgeRiskKind>): Set<EdgeRiskKind> {
  return new Set(EDGE_RISK_KINDS.filter((kind) => !unread.has(kind)));
}

export function createRadar(options: RadarOptions): Radar {
  const { palette, db, clock, logger, settings } = options;
  const scopes = options.projects.length > 0 ? options.projects : [""];
  const store = new RadarStore(db);
  const batch = Math.max(1, options.batch ?? 50);
  const stats: RadarStats = {
    sweepCalls: 0,
    sweepRequests: 0,
    repaveCalls: 0,
    requestsPerMinute: options.followFleet
      ? sweepRequestsPerMinute(0, options.callsPerMinute)
      : options.callsPerMinute,
    clustersRead: 0,
    readFailures: 0,
  };
  /** ms between two requests; 0 = the sweep is off */
  let interval = stats.requestsPerMinute > 0 ? 60_000 / stats.requestsPerMinute : 0;
  /** the pace follows the fleet: looked at again before each batch */
  const repace = async (): Promise<void> => {
    if (!options.followFleet || options.callsPerMinute <= 0) return;
    const rate = sweepRequestsPerMinute(await store.fleetSize(scopes), options.callsPerMinute);
    stats.requestsPerMinute = rate;
    interval = 60_000 / rate;
  };

  let running = false;
  /** set by stop(): a sweep in progress ends after the cluster it is reading */
  let stopping = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  const realSleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const sleep = options.sleep ?? realSleep;

  /** the next call's slot: calls go at most one per `interval`, by the clock */
  let nextSlot = 0;
  const pace = async (): Promise<void> => {
    const now = clock.now();
    const slot = Math.max(now, nextSlot);
    nextSlot = slot + interval;
    if (slot > now) await sleep(slot - now);
  };

  /** the scope the poll listed it in: the tenant's key reads every project's clusters */
  const scopeOf = (cluster: RadarCluster): Scope => {
    const scope = cluster.scope ?? cluster.project;
    return scope ? { projectUid: scope } : {};
  };

  /**
   * one part of a reading; a failure keeps the part last read (a 404: the cluster is gone).
   * Once stop() was called no part is read (nor waited for: a slot is up to 60 / rate seconds
   * away), so a shutdown does not wait out the pacing of the cluster being read.
   */
  /** before each HTTP request of the sweep, retries included: its slot, unless stopped */
  const gate = async (): Promise<void> => {
    if (stopping) throw new RadarStopped();
    await pace();
    if (stopping) throw new RadarStopped();
    stats.sweepRequests += 1;
  };

  async function part<T>(
    read: () => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; gone: boolean; stopped?: true }> {
    if (stopping) return { ok: false, gone: false, stopped: true };
    stats.sweepCalls += 1;
    try {
      return { ok: true, value: await inBulk(read, gate) };
    } catch (error) {
      if (error instanceof RadarStopped) return { ok: false, gone: false, stopped: true };
      const gone = error instanceof PaletteError && error.kind === "not_found";
      if (!gone) logger.warn({ err: String(error) }, "radar: a read failed; the last one is kept");
      return { ok: false, gone };
    }
  }

  async function commit(
    cluster: RadarCluster,
    reading: RadarReading | undefined,
    readAt: number | undefined,
  ): Promise<void> {
    const repaves = await store.repaveSince([cluster.uid]);
    const now = clock.now();
    const risks = risksOf(reading ?? {}, repaves.get(cluster.uid), now, settings);
    await db.transaction(async (tx) => {
      await options.fence?.(tx);
      const inTx = new RadarStore(tx);
      if (reading && readAt !== undefined) await inTx.saveReading(cluster, reading, readAt);
      await inTx.replaceRisks(cluster, risks, now);
    });
    await options.notifier?.sync(cluster, risks, readAt);
  }

  async function readCluster(cluster: RadarCluster): Promise<boolean> {
    const scope = scopeOf(cluster);
    const previous = (await store.reading(cluster.uid))?.reading ?? {};
    const reading: RadarReading = { ...previous };
    const certs = await part(() => palette.getCertificates(cluster.uid, scope));
    if (!certs.ok && certs.gone) {
      // deleted since the poll last listed it: its risks end now (the notices say so), and an
      // empty reading keeps it at the back of the queue until the poll drops it and prune()
      // forgets it
      const readAt = clock.now();
      await db.transaction(async (tx) => {
        await options.fence?.(tx);
        const inTx = new RadarStore(tx);
        await inTx.saveReading(cluster, {}, readAt);
        await inTx.replaceRisks(cluster, [], readAt);
      });
      await options.notifier?.sync(cluster, [], readAt);
      return false;
    }
    if (certs.ok) {
      const leaves = certs.value.filter((cert) => !cert.authority);
      const considered = leaves.length > 0 ? leaves : certs.value;
      const earliest = considered[0]?.expiresAt;
      if (earliest === undefined) delete reading.certificates;
      else {
        reading.certificates = {
          earliest,
          count: considered.filter((cert) => cert.expiresAt === earliest).length,
        };
      }
    }
    const updates = await part(() => palette.getProfileUpdates(cluster.uid, scope));
    if (updates.ok) {
      reading.updates = updates.value.map((u) => ({
        name: u.name,
        ...(u.version ? { version: u.version } : {}),
      }));
    }
    const backup = await part(() => palette.getBackupHistory(cluster.uid, scope));
    if (backup.ok) reading.backup = backupReading(backup.value);
    // stopped half-way: the reading is not kept, so the cluster stays due for the next leader
    if ([certs, updates, backup].some((read) => !read.ok && read.stopped)) return false;
    const ok = certs.ok && updates.ok && backup.ok;
    if (!ok) stats.readFailures += 1;
    const readAt = clock.now();
    await commit(cluster, reading, readAt);
    stats.clustersRead += 1;
    stats.lastReadAt = readAt;
    return ok;
  }

  async function retryNotices(): Promise<void> {
    try {
      await options.notifier?.retryDue();
    } catch (error) {
      logger.warn({ err: String(error) }, "radar: notices not tried again");
    }
  }

  /** the notices the readings claimed go out: singles, or one roll-up per group of many alike */
  async function flushNotices(): Promise<void> {
    try {
      await options.notifier?.flush();
    } catch (error) {
      logger.warn({ err: String(error) }, "radar: notices not posted");
    }
  }

  async function sweep(count: number): Promise<number> {
    try {
      return await sweepBatches(count);
    } finally {
      // also when stopped half-way: what was claimed is posted rather than left to the retry
      await flushNotices();
    }
  }

  async function sweepBatches(count: number): Promise<number> {
    let read = 0;
    // one pass reads each cluster at most once: the oldest reading comes round again after it
    const seen = new Set<string>();
    while (read < count) {
      await repace();
      // notices Slack refused for now go out between reads, not when their cluster is read again
      await retryNotices();
      const wanted = Math.min(batch, count - read);
      // clusters a renewal changed since their last reading go first (their notice is stale)
      const picked = [
        ...(await store.renewedSinceRead(scopes, wanted)),
        ...(await store.due(scopes, wanted)),
      ];
      const due = picked
        .filter((cluster, index) => picked.findIndex((c) => c.uid === cluster.uid) === index)
        .filter((cluster) => !seen.has(cluster.uid))
        .slice(0, wanted);
      if (due.length === 0) break;
      for (const cluster of due) {
        seen.add(cluster.uid);
        if (stopping) return read;
        try {
          await readCluster(cluster);
        } catch (error) {
          stats.readFailures += 1;
          logger.warn({ cluster: cluster.uid, err: String(error) }, "radar: reading not kept");
        }
        read += 1;
      }
      // a batch's notices alike roll up (a profile version many clusters are behind)
      await flushNotices();
    }
    return read;
  }

  async function readRepaves(): Promise<void> {
    const now = clock.now();
    /** the time spent on the store (Palette's pages not counted) */
    let storeMs = 0;
    const changed: string[] = [];
    for (const scope of scopes) {
      const listed: Array<{ uid: string; name: string; projectUid?: string }> = [];
      let next: string | undefined;
      const seen = new Set<string>();
      try {
        do {
          const page = await inBulk(() =>
            palette.pendingRepavesPage(scope ? { projectUid: scope } : {}, next),
          );
          stats.repaveCalls += 1;
          listed.push(...page.items);
          next = page.continue && !seen.has(page.continue) ? page.continue : undefined;
          if (next) seen.add(next);
        } while (next);
      } catch (error) {
        // the list is kept as last read; the next reconciliation reads it again
        logger.warn({ project: scope, err: String(error) }, "radar: pending repaves not read");
        continue;
      }
      const started = performance.now();
      await db.transaction(async (tx) => {
        await options.fence?.(tx);
        changed.push(...(await new RadarStore(tx).replaceRepaves(scope, listed, now)));
      });
      storeMs += performance.now() - started;
    }
    const started = performance.now();
    await prune();
    // a repave risk comes or goes with the list, or with time (past REPAVE_WARN_HOURS, its
    // hours or days); the rest of each reading stands. Only the clusters whose repave risk would
    // show something new are committed: with 1,000 repaves pending a reconciliation that changes
    // nothing writes nothing
    const all = await store.allRepaves();
    const shown = await store.shownRisks("repave");
    const due = new Set(changed);
    for (const [uid, repave] of all) {
      const risk = repaveRisk(repave.since, now, settings);
      if ((risk ? riskFingerprint(risk) : undefined) !== shown.get(uid)) due.add(uid);
    }
    for (const uid of shown.keys()) if (!all.has(uid)) due.add(uid);
    for (const uid of due) {
      const cluster = (await store.cluster(uid)) ?? namedFrom(uid, all.get(uid));
      if (!cluster) continue;
      const last = await store.reading(uid);
      await commit(cluster, last?.reading, undefined);
    }
    storeMs += performance.now() - started;
    stats.lastRepavesStoreMs = Math.round(storeMs);
    // every pending repave the reconciliation found: singles, or one roll-up per channel
    await flushNotices();
    await retryNotices();
  }

  /**
   * Forgets the clusters the poll no longer lists alive in scope, after each reconciliation:
   * a deleted cluster's notices say its risks no longer hold (a failed edit is tried again at
   * the next look), then its rows go; a project dropped from PALETTE_PROJECTS goes silently.
   */
  async function prune(): Promise<void> {
    for (;;) {
      const { gone, outOfScope } = await store.orphans(scopes, options.projects, batch);
      if (gone.length === 0 && outOfScope.length === 0) break;
      await db.transaction(async (tx) => {
        await options.fence?.(tx);
        const inTx = new RadarStore(tx);
        for (const uid of outOfScope) await inTx.forgetCluster(uid);
        await inTx.dropRepavesOutside(options.projects);
        for (const cluster of gone) await inTx.replaceRisks(cluster, [], clock.now());
      });
      let unended = 0;
      for (const cluster of gone) {
        await options.notifier?.sync({ ...cluster, tags: [] }, []);
        await db.transaction(async (tx) => {
          await options.fence?.(tx);
          await new RadarStore(tx).forgetCluster(cluster.uid, true);
        });
        if ((await store.notices(cluster.uid)).length > 0) unended += 1;
      }
      // what is left is waiting on Slack: the next reconciliation tries again
      if (unended > 0 || gone.length + outOfScope.length < batch) break;
    }
  }

  async function readEdge(): Promise<void> {
    const edge = options.edge;
    if (!edge || stopping) return;
    const result = await readEdgeRisks({
      palette: edge.palette,
      db,
      projects: options.projects,
      now: clock.now(),
      settings: edge.settings,
      gate,
    });
    // stopped half-way (a shutdown, a lost lease): the reads stop() cut short are no failures,
    // and nothing is told; the next read (here or at the next leader) tells it
    if (stopping) return;
    stats.lastEdgeRead = {
      calls: result.calls,
      risks: result.risks.length,
      unread: result.unread.length,
    };
    for (const missing of result.unread) {
      logger.warn(missing, "radar: an edge read failed; its notices are kept");
    }
    await edge.notifier?.sync(result.risks, settledKinds(result.unreadKinds));
  }

  const namedFrom = (
    uid: string,
    repave: { project: string; name: string } | undefined,
  ): RadarCluster | undefined =>
    repave ? { uid, name: repave.name, project: repave.project, tags: [] } : undefined;

  return {
    start() {
      if (running || interval === 0) return;
      running = true;
      stopping = false;
      loop = (async () => {
        while (running) {
          try {
            const read = await sweep(batch);
            // nothing known yet (the poll's first listing) or nothing in scope: look again later
            if (read === 0 && running) await sleep(Math.max(interval, 5_000));
          } catch (error) {
            logger.warn({ err: String(error) }, "radar: sweep failed; trying again");
            if (running) await sleep(Math.max(interval, 5_000));
          }
        }
      })();
    },
    async stop() {
      running = false;
      stopping = true;
      wake?.();
      await loop;
      loop = undefined;
    },
    sweep,
    readRepaves,
    readEdge,
    stats: () => ({ ...stats }),
  };
}
