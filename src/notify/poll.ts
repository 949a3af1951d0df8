import cron, { type ScheduledTask } from "node-cron";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { alertKey, CLUSTER_HEALTH, type RaisedAlert } from "../model/alert.ts";
import { type ClusterSnap, isKnownUnhealthy } from "../model/cluster.ts";
import type { ClusterChange, OutboxDraft, SummaryPayload } from "../model/notification.ts";
import type { Subscription } from "../model/subscription.ts";
import { matchesFilter } from "../model/subscription.ts";
import type { PaletteApi } from "../palette/api.ts";
import { PaletteError, PaletteSchemaError } from "../palette/errors.ts";
import { inBackground } from "../palette/priority.ts";
import type { ClusterSummary, PaletteEvent } from "../palette/schemas.ts";
import type { Db } from "../store/db.ts";
import { OutboxStore } from "../store/outbox.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { confirmAbsent } from "./absence.ts";
import {
  type AlertResult,
  afterResults,
  clustersNeedingReason,
  evaluateAlerts,
  reasonFrom,
  reconcileAlerts,
  resolveDeletedSilently,
  unraisedUnhealthy,
} from "./alerts.ts";
import { diffClusters, snapOf } from "./diff.ts";
import { foldChannel } from "./digest.ts";
import { applyFlapping } from "./flapping.ts";
import { cardPayload, routeNews } from "./route.ts";

export interface PollerOptions {
  palette: PaletteApi;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** PALETTE_PROJECTS; empty = tenant scope */
  projects: string[];
  /** node-cron expression (POLL_SCHEDULE); default every 30 seconds */
  schedule?: string;
  /** events read per cluster whose health was lost; default 10 */
  eventsLimit?: number;
  /** at most this many event reads per cycle (10 req/s on /v1/events); default 20 */
  maxEventCalls?: number;
  /** GETs by UID in flight at once, confirming clusters missing from a listing; default 4 */
  lookupParallelism?: number;
  /** called after a cycle committed outbox rows (wakes the sender) */
  onCommitted?: (rows: number) => void;
  /** called after every cycle that ran (ok or failed; not for skipped ones), e.g. for metrics */
  onCycle?: (result: CycleResult) => void;
}

export interface CycleResult {
  ok: boolean;
  /** a cycle was still running: this one did nothing */
  skipped: boolean;
  clusters: number;
  changes: number;
  outboxRows: number;
  eventCalls: number;
  durationMs: number;
  error?: string;
}

export interface PollerMetrics {
  /** cycles that ran, ok or failed (skipped ones not counted) */
  cycles: number;
  failedCycles: number;
  skippedCycles: number;
  lastCycleMs: number;
  totalCycleMs: number;
  clustersSeen: number;
  changesReported: number;
  outboxRows: number;
  lastSuccessAt?: string;
  /** false after a failed cycle, until one succeeds (readiness) */
  lastCycleOk: boolean;
  /** the last failure's message (no secrets: PaletteError messages carry none) */
  lastError?: string;
  /**
   * Scopes whose alert kinds Palette refuses, in words for readiness ("alerts unavailable for
   * project X: Palette refused (403)"): their cluster changes are still reported, alerts are not.
   */
  alertsUnavailable: string[];
}

export interface Poller {
  runCycle(): Promise<CycleResult>;
  start(): void;
  stop(): Promise<void>;
  /** the clusters as of the last committed cycle (for the App Home) */
  lastSnapshot(): { clusters: ClusterSnap[]; at?: string };
  metrics(): PollerMetrics;
}

interface ProjectRead {
  project: string;
  clusters: ClusterSnap[];
  conditions: Map<string, string[]>;
  /** the alert kinds Palette lists for the scope; empty while they are refused */
  supported: Set<string>;
  /** set when Palette refused the alert kinds: the refusal, and Palette's words for the log */
  alertsRefused?: { summary: string; detail: string };
}

const iso = (ms: number) => new Date(ms).toISOString();
const SENT_RETENTION_MS = 7 * 24 * 3600_000;

function conditionsOf(summary: ClusterSummary): string[] {
  return (summary.status?.health?.conditions ?? [])
    .map((c) => [c.type, c.message].filter(Boolean).join(": "))
    .filter((text) => text.length > 0);
}

/** Health conditions of every cluster read this cycle, whatever scope it was read in. */
function conditionsByCluster(reads: ReadonlyMap<string, ProjectRead>): Map<string, string[]> {
  const all = new Map<string, string[]>();
  for (const projectRead of reads.values()) {
    for (const [uid, conditions] of projectRead.conditions) all.set(uid, conditions);
  }
  return all;
}

/**
 * A failed cycle in words fit for `/readyz`: the kind of failure and where, without the error
 * body Palette sent (that text is in the log line, for operators).
 */
export function failureSummary(error: unknown): string {
  if (error instanceof PaletteError) {
    const status = error.status > 0 ? `HTTP ${error.status}, ` : "";
    return `Palette ${error.kind} error (${status}${error.endpoint})`;
  }
  if (error instanceof PaletteSchemaError) {
    return `Palette answered ${error.endpoint} in a shape the bot does not read`;
  }
  return "internal error (details in the bot's log)";
}

/**
 * A refusal of the alert kinds that leaves the cluster listing usable: the bot's role may not read
 * alerts in the project (403), or this Palette does not serve them there (404). Anything else
 * (5xx, time-out, 401) fails the cycle as before, to be retried whole.
 */
function alertsRefusal(error: unknown): string | undefined {
  if (!(error instanceof PaletteError)) return undefined;
  if (error.kind === "forbidden") return `Palette refused (${error.status || 403})`;
  if (error.kind === "not_found") return `Palette has none (${error.status || 404})`;
  return undefined;
}

const scopeName = (scope: string) => (scope ? `project ${scope}` : "the tenant");

/** The counters of a poller that has not run a cycle yet. */
export function emptyPollerMetrics(): PollerMetrics {
  return {
    cycles: 0,
    failedCycles: 0,
    skippedCycles: 0,
    lastCycleMs: 0,
    totalCycleMs: 0,
    clustersSeen: 0,
    changesReported: 0,
    outboxRows: 0,
    lastCycleOk: false,
    alertsUnavailable: [],
  };
}

export function createPoller(options: PollerOptions): Poller {
  const { palette, db, clock, logger } = options;
  const scopes = options.projects.length > 0 ? options.projects : [""];
  const snapshots = new SnapshotStore(db);
  const subscriptions = new SubscriptionStore(db, clock);
  const outbox = new OutboxStore(db);
  const eventsLimit = options.eventsLimit ?? 10;
  const maxEventCalls = options.maxEventCalls ?? 20;
  /** scope → why its alerts are unavailable, as of the last committed cycle */
  const alertsOff = new Map<string, string>();

  const metrics = emptyPollerMetrics();
  let running: Promise<CycleResult> | undefined;
  let task: ScheduledTask | undefined;
  let snapshotCache: { clusters: ClusterSnap[]; at?: string } = {
    clusters: scopes.flatMap((scope) => [...snapshots.load(scope).values()]),
  };

  async function read(project: string): Promise<ProjectRead> {
    const scope = project ? { projectUid: project } : {};
    const clusters: ClusterSnap[] = [];
    const conditions = new Map<string, string[]>();
    for await (const summary of palette.searchAllClusters(scope)) {
      const snap = snapOf(summary, project || (summary.specSummary?.projectMeta?.uid ?? ""));
      if (!snap) continue;
      clusters.push(snap);
      const found = conditionsOf(summary);
      if (found.length > 0) conditions.set(snap.uid, found);
    }
    try {
      const components = await palette.listAlertComponents(scope);
      const supported = new Set(
        components.map((c) => c.name ?? "").filter((name) => name.length > 0),
      );
      return { project, clusters, conditions, supported };
    } catch (error) {
      // the clusters were read: a refusal of the alert kinds costs the alerts, not the listing
      const refusal = alertsRefusal(error);
      if (!refusal) throw error;
      const summary = `alerts unavailable for ${scopeName(project)}: ${refusal}`;
      const detail = error instanceof Error ? error.message : String(error);
      return {
        project,
        clusters,
        conditions,
        supported: new Set(),
        alertsRefused: { summary, detail },
      };
    }
  }

  async function reasonsFor(
    uids: string[],
    reads: Map<string, ProjectRead>,
    health: Map<string, ClusterSnap>,
  ): Promise<{ reasons: Map<string, string>; calls: number }> {
    const reasons = new Map<string, string>();
    let calls = 0;
    // reads are keyed by scope ("" in tenant scope), snaps by their real project: look up by UID
    const conditionsByUid = conditionsByCluster(reads);
    for (const uid of uids) {
      const snap = health.get(uid);
      if (!snap) continue;
      const conditions = conditionsByUid.get(uid) ?? [];
      let events: PaletteEvent[] = [];
      if (calls < maxEventCalls) {
        calls += 1;
        try {
          events = await palette.listClusterEvents(
            uid,
            snap.project ? { projectUid: snap.project } : {},
            eventsLimit,
          );
        } catch (error) {
          // the reason is a nicety: conditions alone still explain the alert
          logger.warn({ err: String(error), cluster: uid }, "cluster events unavailable");
        }
      }
      reasons.set(uid, reasonFrom(snap.health, conditions, events));
    }
    return { reasons, calls };
  }

  async function cycle(): Promise<CycleResult> {
    const started = clock.now();
    const startedReal = performance.now();
    // Everything from Palette first: a failure here leaves the store exactly as it was.
    const reads = new Map<string, ProjectRead>();
    let skipped: PaletteError | undefined;
    for (const scope of scopes) {
      try {
        reads.set(scope, await read(scope));
      } catch (error) {
        // A project the bot may not see (deleted, role removed) must not silence the others;
        // it is left out untouched, so nothing about it is diffed or falsely reported.
        if (
          error instanceof PaletteError &&
          (error.kind === "forbidden" || error.kind === "not_found")
        ) {
          logger.warn({ project: scope, err: error.message }, "project skipped this cycle");
          skipped = error;
          continue;
        }
        throw error;
      }
    }
    // every project refused: that is the bot's access, not one project; the cycle fails so
    // readiness and the logs say so instead of a silent poll of nothing
    if (skipped && reads.size === 0) throw skipped;

    // Clusters remembered but not listed: asked about by UID before anyone hears they are gone.
    const previousByScope = new Map<string, Map<string, ClusterSnap>>();
    const missing: ClusterSnap[] = [];
    for (const [scope, projectRead] of reads) {
      const previous = snapshots.load(scope);
      previousByScope.set(scope, previous);
      if (!snapshots.hasBaseline(scope)) continue;
      const listed = new Set(projectRead.clusters.map((c) => c.uid));
      for (const before of previous.values()) if (!listed.has(before.uid)) missing.push(before);
    }
    const absent = await confirmAbsent(missing, {
      palette,
      logger,
      parallelism: options.lookupParallelism,
    });

    const at = iso(started);
    const subs = subscriptions.all();
    const raised = snapshots.raisedAlerts();

    const baselines: ProjectRead[] = [];
    const rawChanges: ClusterChange[] = [];
    const nextByScope = new Map<
      string,
      { previous: Map<string, ClusterSnap>; next: ClusterSnap[] }
    >();
    const current = new Map<string, ClusterSnap>();
    for (const [scope, projectRead] of reads) {
      const previous = previousByScope.get(scope) ?? new Map<string, ClusterSnap>();
      if (!snapshots.hasBaseline(scope)) {
        baselines.push(projectRead);
        nextByScope.set(scope, { previous, next: projectRead.clusters });
        for (const c of projectRead.clusters) current.set(c.uid, c);
        continue;
      }
      const { changes, next } = diffClusters(previous, projectRead.clusters, absent);
      rawChanges.push(...changes);
      nextByScope.set(scope, { previous, next });
      for (const c of next) current.set(c.uid, c);
    }

    const flaps = applyFlapping(rawChanges, snapshots.flapHistories(), current, started);
    const changes = flaps.changes;

    const supportedFor = (project: string) =>
      reads.get(project)?.supported ?? reads.get("")?.supported ?? new Set<string>();
    const alertResults: AlertResult[] = [];
    let eventCalls = 0;
    for (const [scope, projectRead] of reads) {
      const own = changes.filter(
        (c) => (scopes.length === 1 && scope === "") || c.cluster.project === scope,
      );
      if (projectRead.alertsRefused) {
        // no alert is raised or resolved while the kinds are refused, but a deleted cluster
        // cannot keep one: its row goes, silently
        alertResults.push(resolveDeletedSilently(own, raised));
        continue;
      }
      const supported = supportedFor(scope);
      const needing = clustersNeedingReason(own, raised, supported);
      const { reasons, calls } = await reasonsFor(needing, reads, current);
      eventCalls += calls;
      alertResults.push(evaluateAlerts({ changes: own, raised, supported, reasons, now: at }));
    }
    // Alerts readable again after a refusal: squared with health, with this poll's own say first.
    const alertsBack = [...reads.values()].filter(
      (r) => !r.alertsRefused && alertsOff.has(r.project),
    );
    if (alertsBack.length > 0) {
      const raisedNow = afterResults(raised, alertResults);
      for (const projectRead of alertsBack) {
        const clusters = nextByScope.get(projectRead.project)?.next ?? [];
        const needing = unraisedUnhealthy(clusters, raisedNow, projectRead.supported);
        const { reasons, calls } = await reasonsFor(needing, reads, current);
        eventCalls += calls;
        alertResults.push(
          reconcileAlerts({
            clusters,
            raised: raisedNow,
            supported: projectRead.supported,
            reasons,
            now: at,
          }),
        );
      }
    }
    const alertEvents = alertResults.flatMap((r) => r.events);

    const route = routeNews({ subscriptions: subs, changes, alerts: alertEvents });
    const drafts: OutboxDraft[] = [];
    drafts.push(...summaries(baselines, subs, at));
    for (const [channel, news] of route.byChannel) {
      drafts.push(
        ...foldChannel(
          channel,
          news.map((n) => cardPayload(n, at)),
          at,
        ),
      );
    }

    // Baseline clusters already unhealthy count as raised, so their recovery is reported.
    const baselineRaised: RaisedAlert[] = [];
    for (const projectRead of baselines) {
      if (!projectRead.supported.has(CLUSTER_HEALTH)) continue;
      for (const c of projectRead.clusters) {
        if (isKnownUnhealthy(c.health) && !raised.has(alertKey(c.uid, CLUSTER_HEALTH))) {
          const reason = reasonFrom(c.health, projectRead.conditions.get(c.uid) ?? [], []);
          baselineRaised.push({ clusterUid: c.uid, kind: CLUSTER_HEALTH, reason, raisedAt: at });
        }
      }
    }

    db.transaction(() => {
      for (const [scope, { previous, next }] of nextByScope) {
        snapshots.replace(scope, previous, next, at);
      }
      for (const projectRead of baselines) snapshots.markBaseline(projectRead.project, at);
      for (const result of alertResults) {
        for (const alert of result.raise) snapshots.raiseAlert(alert);
        for (const r of result.resolve) snapshots.resolveAlert(r.clusterUid, r.kind);
      }
      for (const alert of baselineRaised) snapshots.raiseAlert(alert);
      snapshots.saveFlapHistories(flaps.histories);
      for (const draft of drafts) outbox.add(draft, at);
      outbox.prune(iso(started - SENT_RETENTION_MS));
    })();

    noteAlertsAvailability(reads);
    snapshotCache = { clusters: [...current.values()], at };
    const durationMs = performance.now() - startedReal;
    metrics.cycles += 1;
    metrics.lastCycleMs = durationMs;
    metrics.totalCycleMs += durationMs;
    metrics.clustersSeen = current.size;
    metrics.changesReported += changes.length;
    metrics.outboxRows += drafts.length;
    metrics.lastSuccessAt = at;
    metrics.lastCycleOk = true;
    metrics.lastError = undefined;
    if (drafts.length > 0) options.onCommitted?.(drafts.length);
    return {
      ok: true,
      skipped: false,
      clusters: current.size,
      changes: changes.length,
      outboxRows: drafts.length,
      eventCalls,
      durationMs,
    };
  }

  /**
   * After a committed cycle: a scope whose alert kinds Palette refuses is said once (log and
   * readiness), not every cycle; its return is logged once too.
   */
  function noteAlertsAvailability(reads: ReadonlyMap<string, ProjectRead>): void {
    for (const [scope, projectRead] of reads) {
      const refused = projectRead.alertsRefused;
      if (refused && !alertsOff.has(scope)) {
        alertsOff.set(scope, refused.summary);
        logger.warn(
          { project: scope, err: refused.detail },
          `${refused.summary}; cluster changes are still reported`,
        );
      } else if (!refused && alertsOff.has(scope)) {
        alertsOff.delete(scope);
        logger.info({ project: scope }, `alerts available again for ${scopeName(scope)}`);
      }
    }
    metrics.alertsUnavailable = [...alertsOff.values()];
  }

  async function runCycle(): Promise<CycleResult> {
    if (running) {
      metrics.skippedCycles += 1;
      return {
        ok: true,
        skipped: true,
        clusters: 0,
        changes: 0,
        outboxRows: 0,
        eventCalls: 0,
        durationMs: 0,
      };
    }
    const started = performance.now();
    // the poll is routine work: commands go before it on each prefix's budget
    running = inBackground(cycle)
      .catch((error: unknown) => {
        metrics.failedCycles += 1;
        metrics.cycles += 1;
        const message = error instanceof Error ? error.message : String(error);
        logger.warn({ err: message }, "poll cycle failed; nothing committed, next cycle retries");
        // what readiness and metrics repeat: the kind of failure, never Palette's own words
        const summary = failureSummary(error);
        return {
          ok: false,
          skipped: false,
          clusters: 0,
          changes: 0,
          outboxRows: 0,
          eventCalls: 0,
          durationMs: performance.now() - started,
          error: summary,
        };
      })
      .then((result) => {
        if (!result.ok) {
          metrics.lastCycleOk = false;
          metrics.lastError = result.error;
        }
        try {
          options.onCycle?.(result);
        } catch (error) {
          logger.warn({ err: String(error) }, "onCycle hook failed");
        }
        return result;
      });
    try {
      return await running;
    } finally {
      running = undefined;
    }
  }

  return {
    runCycle,
    start() {
      if (task) return;
      task = cron.schedule(
        options.schedule ?? "*/30 * * * * *",
        async () => {
          await runCycle();
        },
        { noOverlap: true, name: "palette-poll" },
      );
    },
    async stop() {
      if (task) {
        await task.stop();
        await task.destroy();
        task = undefined;
      }
      if (running) await running;
    },
    lastSnapshot: () => snapshotCache,
    metrics: () => ({ ...metrics, alertsUnavailable: [...metrics.alertsUnavailable] }),
  };
}

/** One summary per subscribed channel for the projects seen for the first time this cycle. */
function summaries(
  baselines: readonly ProjectRead[],
  subs: readonly Subscription[],
  at: string,
): OutboxDraft[] {
  if (baselines.length === 0) return [];
  const byChannel = new Map<string, Subscription[]>();
  for (const sub of subs) {
    if (sub.pausedReason) continue;
    byChannel.set(sub.channel, [...(byChannel.get(sub.channel) ?? []), sub]);
  }
  const drafts: OutboxDraft[] = [];
  for (const [channel, channelSubs] of byChannel) {
    // a tenant-scope baseline ("") holds every project's clusters: matchesFilter picks them
    const relevant = baselines.filter((b) =>
      channelSubs.some((s) => !s.project || !b.project || s.project === b.project),
    );
    if (relevant.length === 0) continue;
    const clusters = relevant
      .flatMap((b) => b.clusters)
      .filter((c) => channelSubs.some((s) => matchesFilter(s, c)));
    const byState: Record<string, number> = {};
    for (const c of clusters) byState[c.state] = (byState[c.state] ?? 0) + 1;
    const payload: SummaryPayload = {
      projects: relevant.map((b) => b.project),
      total: clusters.length,
      byState,
      unhealthy: clusters
        .filter((c) => isKnownUnhealthy(c.health))
        .map((c) => ({ name: c.name, health: c.health })),
      at,
    };
    drafts.push({ channel, kind: "summary", payload });
  }
  return drafts;
}
