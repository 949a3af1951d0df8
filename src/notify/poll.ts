import cron, { type ScheduledTask } from "node-cron";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { alertKey, CLUSTER_HEALTH, type RaisedAlert } from "../model/alert.ts";
import type { ClusterSnap } from "../model/cluster.ts";
import type { ClusterChange, HoldChange, OutboxDraft } from "../model/notification.ts";
import { hearsPoll } from "../model/subscription.ts";
import type { PaletteApi } from "../palette/api.ts";
import { PaletteError, PaletteSchemaError } from "../palette/errors.ts";
import { inBackground, inBulk } from "../palette/priority.ts";
import type { PaletteEvent } from "../palette/schemas.ts";
import { FencedOut } from "../store/lease.ts";
import { NotifyEventLog } from "../store/notify-events.ts";
import { OutboxStore } from "../store/outbox.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import { ReconcileStaging } from "../store/staging.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
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
import { DIGEST_THRESHOLD, foldChannel } from "./digest.ts";
import { logForDigest } from "./digest-events.ts";
import { applyFlapping } from "./flapping.ts";
import { holdCycle } from "./holds.ts";
import { readIncremental } from "./incremental.ts";
import { addLikelyCauseLines } from "./likely-cause-lines.ts";
import { readFull } from "./reconcile.ts";
import { cardPayload, routeNews } from "./route.ts";
import { type ReadDeps, type ScopeRead, scopeQuery } from "./scope-read.ts";
import { summaries } from "./summary.ts";

/**
 * `incremental`: Palette is asked only for what can have changed (clusters not Running and
 * Healthy, and the ones that just left that set); `reconcile`: the full listing, diffed against
 * everything remembered, which also sees what the incremental query cannot.
 */
export type CycleKind = "incremental" | "reconcile";

/** Event reads in flight at once: the pacer keeps them under /v1/events' 10 a second anyway. */
const EVENT_READERS = 4;

export interface PollerOptions {
  palette: PaletteApi;
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** PALETTE_PROJECTS; empty = tenant scope */
  projects: string[];
  /** node-cron expression (POLL_SCHEDULE); default every 30 seconds */
  schedule?: string;
  /** node-cron expression (RECONCILE_SCHEDULE) of the full reconciliation; default every 10 minutes */
  reconcileSchedule?: string;
  /** clusters a reconciliation diffs and stages at a time; default 500 */
  reconcileBatch?: number;
  /** events read per cluster whose health was lost; default 10 */
  eventsLimit?: number;
  /** at most this many event reads per cycle, all projects together; default 10 */
  maxEventCalls?: number;
  /**
   * How long a cycle waits for those event reads, all projects together, before it commits
   * without the ones still out (the reason then comes from health conditions); default 2 s
   */
  eventReadsWindowMs?: number;
  /** GETs by UID in flight at once, confirming clusters missing from a listing; default 4 */
  lookupParallelism?: number;
  /**
   * A notification that a cluster lost health or failed carries its likely cause (issue 27): two
   * more reads per announced cluster (its audit and events, narrowed to the hour), out of the
   * same budget and window as the event reads; none for a roll-up. Default off.
   */
  likelyCauses?: boolean;
  /** called after a cycle committed outbox rows (wakes the sender) */
  onCommitted?: (rows: number) => void;
  /** called after a cycle ended snoozes or mutes (the Slack edge redraws their cards) */
  onHoldsEnded?: (changes: HoldChange[]) => void;
  /** called after every cycle that ran (ok or failed; not for skipped ones), e.g. for metrics */
  onCycle?: (result: CycleResult) => void;
  /** a reconciliation started (true) or ended (false) reading and committing, for metrics */
  onReconciling?: (active: boolean) => void;
  /**
   * Run first inside the commit's transaction; throws (FencedOut) when this replica no longer
   * leads, so a leader deposed while it read Palette commits nothing (src/store/lease.ts)
   */
  fence?: (tx: SqlExecutor) => Promise<void>;
}

export const DEFAULT_POLL_SCHEDULE = "*/30 * * * * *";
export const DEFAULT_RECONCILE_SCHEDULE = "0 */10 * * * *";

export interface CycleResult {
  /** the kind of cycle that ran (for a skipped one: the kind that was due) */
  kind: CycleKind;
  ok: boolean;
  /** a cycle was still running: this one did nothing */
  skipped: boolean;
  /** clusters the poller remembers in the scopes it read */
  clusters: number;
  changes: number;
  outboxRows: number;
  eventCalls: number;
  /** Palette API calls the cycle made (searches pages, look-ups, alert kinds, events) */
  paletteCalls: number;
  durationMs: number;
  error?: string;
}

export interface PollerMetrics {
  /** cycles that ran, ok or failed (skipped ones not counted) */
  cycles: number;
  failedCycles: number;
  skippedCycles: number;
  /** cycles that ran, by kind */
  incrementalCycles: number;
  reconcileCycles: number;
  /** the kind of the last cycle that ran, and the Palette calls it made */
  lastCycleKind?: CycleKind;
  lastCyclePaletteCalls: number;
  /** when the last reconciliation committed */
  lastReconcileAt?: string;
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
  /** one cycle: a reconciliation when one is due (the first cycle, a RECONCILE_SCHEDULE tick, a
   * failed reconciliation), else incremental */
  runCycle(): Promise<CycleResult>;
  /** makes the next cycle a reconciliation (what the RECONCILE_SCHEDULE tick does) */
  requestReconcile(): void;
  start(): void;
  stop(): Promise<void>;
  /** the clusters as of the last committed cycle (for the App Home), read from the store on call */
  lastSnapshot(): Promise<{ clusters: ClusterSnap[]; at?: string }>;
  metrics(): PollerMetrics;
}

/** The alert kinds of one scope as read this cycle. */
interface AlertKinds {
  /** the kinds Palette lists for the scope; empty while they are refused */
  supported: Set<string>;
  /** set when Palette refused them: the refusal, and Palette's words for the log */
  refused?: { summary: string; detail: string };
}

/** The Palette calls the poller makes, each counted (the cycle's cost is a metric). */
type PollPalette = Pick<
  PaletteApi,
  | "searchClusters"
  | "getCluster"
  | "getClusterOverview"
  | "listAlertComponents"
  | "listClusterEvents"
  | "listAudits"
  | "clusterEventsPage"
>;

const iso = (ms: number) => new Date(ms).toISOString();
const SENT_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * A failed cycle in words fit for `/readyz`: the kind of failure and where, without the error
 * body Palette sent (that text is in the log line, for operators).
 */
export function failureSummary(error: unknown): string {
  if (error instanceof FencedOut) return "this replica no longer leads: the commit was refused";
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
    incrementalCycles: 0,
    reconcileCycles: 0,
    lastCyclePaletteCalls: 0,
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
  const { db, clock, logger } = options;
  const scopes = options.projects.length > 0 ? options.projects : [""];
  const snapshots = new SnapshotStore(db);
  const staging = new ReconcileStaging(db);
  const subscriptions = new SubscriptionStore(db, clock);
  const eventsLimit = options.eventsLimit ?? 10;
  const maxEventCalls = options.maxEventCalls ?? 10;
  const eventReadsWindowMs = options.eventReadsWindowMs ?? 2_000;
  /** scope → why its alerts are unavailable, as of the last committed cycle */
  const alertsOff = new Map<string, string>();

  /**
   * Each cycle counts its own Palette calls through a client of its own: a reconciliation's reads
   * and incremental cycles can overlap.
   */
  const countedPalette = (counter: { calls: number }): PollPalette => {
    const counted =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        counter.calls += 1;
        return call(...args);
      };
    return {
      searchClusters: counted((query) => options.palette.searchClusters(query)),
      getCluster: counted((uid, scope) => options.palette.getCluster(uid, scope)),
      getClusterOverview: counted((uid, scope) => options.palette.getClusterOverview(uid, scope)),
      listAlertComponents: counted((scope) => options.palette.listAlertComponents(scope)),
      listClusterEvents: counted((uid, scope, limit) =>
        options.palette.listClusterEvents(uid, scope, limit),
      ),
      listAudits: counted((query, scope) => options.palette.listAudits(query, scope)),
      clusterEventsPage: counted((uid, scope, next) =>
        options.palette.clusterEventsPage(uid, scope, next),
      ),
    };
  };
  const readDepsWith = (palette: PollPalette): ReadDeps => ({
    palette,
    db,
    snapshots,
    staging,
    logger,
    lookupParallelism: options.lookupParallelism,
  });

  const metrics = emptyPollerMetrics();
  let running: Promise<CycleResult> | undefined;
  let tasks: ScheduledTask[] = [];
  /** the first cycle reconciles; so does the first after a tick, or after a failed one */
  let reconcileDue = true;
  /**
   * While a reconciliation reads Palette (minutes at fleet scale), incremental cycles go on and
   * commit; this holds, per scope, the clusters they wrote meanwhile, which the reconciliation's
   * older reading of them must not overwrite or announce again.
   */
  let reconciling: Map<string, Set<string>> | undefined;
  /** the reconciliation under way, read and commit: what stop() waits for besides `running` */
  let reconciliation: Promise<CycleResult> | undefined;
  let lastCommitAt: string | undefined;
  /** each scope's alert kinds as last read (at a reconciliation, mostly) */
  const knownKinds = new Map<string, AlertKinds>();

  async function readKinds(palette: PollPalette, scope: string): Promise<AlertKinds> {
    try {
      const components = await palette.listAlertComponents(scopeQuery(scope));
      return {
        supported: new Set(components.map((c) => c.name ?? "").filter((name) => name.length > 0)),
      };
    } catch (error) {
      // the clusters were read: a refusal of the alert kinds costs the alerts, not the listing
      const refusal = alertsRefusal(error);
      if (!refusal) throw error;
      const summary = `alerts unavailable for ${scopeName(scope)}: ${refusal}`;
      const detail = error instanceof Error ? error.message : String(error);
      return { supported: new Set(), refused: { summary, detail } };
    }
  }

  /**
   * Alert reasons: health conditions, plus each cluster's recent events while this cycle's budget
   * lasts. The budget is the cycle's, not a project's, and the reads run a few at a time: after a
   * restart many clusters need a reason at once, and a cycle that spends its time reading events
   * one by one may never commit before the next restart.
   */
  async function reasonsFor(
    palette: PollPalette,
    uids: string[],
    conditionsByUid: ReadonlyMap<string, string[]>,
    health: ReadonlyMap<string, ClusterSnap>,
    budget: { eventCalls: number; until: number },
  ): Promise<{ reasons: Map<string, string>; calls: number }> {
    const reasons = new Map<string, string>();
    const wanted = uids.filter((uid) => health.has(uid));
    const timeLeft = budget.until - performance.now();
    const withEvents = timeLeft > 0 ? wanted.slice(0, Math.max(0, budget.eventCalls)) : [];
    budget.eventCalls -= withEvents.length;
    const events = new Map<string, PaletteEvent[]>();
    const queue = [...withEvents];
    const reader = async () => {
      for (let uid = queue.shift(); uid !== undefined; uid = queue.shift()) {
        const snap = health.get(uid)!;
        try {
          events.set(
            uid,
            await palette.listClusterEvents(
              uid,
              snap.project ? { projectUid: snap.project } : {},
              eventsLimit,
            ),
          );
        } catch (error) {
          // the reason is a nicety: conditions alone still explain the alert
          logger.warn({ err: String(error), cluster: uid }, "cluster events unavailable");
        }
      }
    };
    const readers = Promise.all(
      Array.from({ length: Math.min(EVENT_READERS, queue.length) }, reader),
    );
    // Under Palette's faults (a 429 waits a second, a slow answer two) the reads could hold the
    // commit for seconds, and a restart meanwhile loses the whole cycle: the chaos run saw cycles
    // of 6 s killed before they committed, so states that lived 15 s were read by no committed
    // poll. The reads get the cycle's window; those still out are left (events are a nicety).
    let timer: NodeJS.Timeout | undefined;
    const windowEnds = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timeLeft));
    });
    await Promise.race([readers, windowEnds]);
    clearTimeout(timer);
    queue.length = 0;
    const read = new Map(events);
    for (const uid of wanted) {
      const snap = health.get(uid)!;
      reasons.set(
        uid,
        reasonFrom(snap.health, conditionsByUid.get(uid) ?? [], read.get(uid) ?? []),
      );
    }
    return { reasons, calls: withEvents.length };
  }

  /** Palette first, scope by scope: a failure here leaves the store exactly as it was. */
  async function readScopes(
    kind: CycleKind,
    palette: PollPalette,
    onlyBaselined = false,
  ): Promise<Map<string, ScopeRead>> {
    const readDeps = readDepsWith(palette);
    const reads = new Map<string, ScopeRead>();
    let skipped: PaletteError | undefined;
    for (const scope of scopes) {
      try {
        // a scope without its baseline (never seen, or refused until now) is read in full,
        // unless a reconciliation reading it right now gives it its baseline
        const full = kind === "reconcile" || !(await snapshots.hasBaseline(scope));
        if (full && onlyBaselined) continue;
        const read = full
          ? await readFull(readDeps, scope, options.reconcileBatch)
          : await readIncremental(readDeps, scope);
        reads.set(scope, read);
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
    return reads;
  }

  /** What a cycle read from Palette, before anything is diffed against the store or committed. */
  interface CycleRead {
    kind: CycleKind;
    /** the cycle's own client, counting its calls in `counter` */
    palette: PollPalette;
    counter: { calls: number };
    started: number;
    startedReal: number;
    readEnded: number;
    reads: Map<string, ScopeRead>;
  }

  async function readPhase(
    kind: CycleKind,
    counter: { calls: number },
    onlyBaselined = false,
  ): Promise<CycleRead> {
    const started = clock.now();
    const startedReal = performance.now();
    const palette = countedPalette(counter);
    const reads = await readScopes(kind, palette, onlyBaselined);
    return { kind, palette, counter, started, startedReal, readEnded: clock.now(), reads };
  }

  /**
   * Diffs, alerts, routes and commits what `read` found. `newer` (a reconciliation's): per scope,
   * the clusters incremental cycles wrote while it read, whose changes it leaves to them.
   */
  async function cycle(
    read: CycleRead,
    newer?: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<CycleResult> {
    const { kind, started, startedReal, readEnded, reads, palette, counter } = read;

    const at = iso(started);
    // a `risks` subscription hears the radar (src/radar/), not the poll
    const subs = (await subscriptions.all()).filter(hearsPoll);
    const raised = await snapshots.raisedAlerts();
    const conditions = new Map<string, string[]>();
    for (const read of reads.values())
      for (const [uid, c] of read.conditions) conditions.set(uid, c);
    /** clusters as this cycle leaves them, across the scopes read (only these UIDs) */
    const after = async (uids: readonly string[]) => {
      const found = new Map<string, ClusterSnap>();
      for (const read of reads.values()) {
        for (const [uid, c] of await read.after(uids)) found.set(uid, c);
      }
      return found;
    };

    const histories = await snapshots.flapHistories();
    const rawChanges = [...reads.values()].flatMap((scopeRead) => {
      const taken = newer?.get(scopeRead.scope);
      return taken && taken.size > 0
        ? scopeRead.changes.filter((change) => !taken.has(change.cluster.uid))
        : scopeRead.changes;
    });
    const flaps = applyFlapping(rawChanges, histories, await after([...histories.keys()]), started);
    const changes = flaps.changes;
    const changed = new Map(changes.map((c) => [c.cluster.uid, c.cluster]));
    const ownChanges = (scope: string): ClusterChange[] =>
      changes.filter((c) => (scopes.length === 1 && scope === "") || c.cluster.project === scope);

    // Alert kinds (which alerts a project has) change about never: they are read at each
    // reconciliation and kept, and read between them only while a scope's alerts are unavailable
    // (to notice their return) or not known yet. An incremental cycle with news uses the kept
    // ones, so news costs no extra call.
    const kinds = new Map<string, AlertKinds>();
    const kindsRead = new Map<string, AlertKinds>();
    for (const [scope, read] of reads) {
      const known = knownKinds.get(scope);
      if (read.mode === "full" || alertsOff.has(scope) || !known) {
        const fresh = await readKinds(palette, scope);
        kindsRead.set(scope, fresh);
        kinds.set(scope, fresh);
      } else if (ownChanges(scope).length > 0) {
        kinds.set(scope, known);
      }
    }

    const alertResults: AlertResult[] = [];
    let eventCalls = 0;
    // an incremental cycle stays within what its scopes' reads allow (pages, name searches, 3
    // more a scope): event reads get what the reads left, and the reasons of the others come
    // from health conditions
    const allowances = [...reads.values()].map((read) => read.callAllowance);
    const leftOver = allowances.every((a) => a !== undefined)
      ? allowances.reduce((sum, a) => sum + (a ?? 0), 0) - counter.calls
      : Number.POSITIVE_INFINITY;
    const eventBudget = {
      eventCalls: Math.max(0, Math.min(maxEventCalls, leftOver)),
      until: performance.now() + eventReadsWindowMs,
    };
    for (const [scope, scopeKinds] of kinds) {
      const own = ownChanges(scope);
      if (scopeKinds.refused) {
        // no alert is raised or resolved while the kinds are refused, but a deleted cluster
        // cannot keep one: its row goes, silently
        alertResults.push(resolveDeletedSilently(own, raised));
        continue;
      }
      const needing = clustersNeedingReason(own, raised, scopeKinds.supported);
      const { reasons, calls: used } = await reasonsFor(
        palette,
        needing,
        conditions,
        changed,
        eventBudget,
      );
      eventCalls += used;
      alertResults.push(
        evaluateAlerts({ changes: own, raised, supported: scopeKinds.supported, reasons, now: at }),
      );
    }
    // Alerts readable again after a refusal: squared with health, with this poll's own say first.
    const alertsBack = [...kindsRead].filter(([scope, k]) => !k.refused && alertsOff.has(scope));
    if (alertsBack.length > 0) {
      const raisedNow = afterResults(raised, alertResults);
      for (const [scope, scopeKinds] of alertsBack) {
        const read = reads.get(scope)!;
        // the only clusters reconcileAlerts can act on: unhealthy ones, and raised ones
        const clusters = new Map((await read.unhealthyAfter()).map((c) => [c.uid, c]));
        const raisedUids = [...new Set([...raisedNow.values()].map((a) => a.clusterUid))];
        for (const [uid, c] of await read.after(raisedUids)) {
          if (!clusters.has(uid)) clusters.set(uid, c);
        }
        const list = [...clusters.values()];
        const needing = unraisedUnhealthy(list, raisedNow, scopeKinds.supported);
        const { reasons, calls: used } = await reasonsFor(
          palette,
          needing,
          conditions,
          clusters,
          eventBudget,
        );
        eventCalls += used;
        alertResults.push(
          reconcileAlerts({
            clusters: list,
            raised: raisedNow,
            supported: scopeKinds.supported,
            reasons,
            now: at,
          }),
        );
      }
    }
    const alertEvents = alertResults.flatMap((r) => r.events);

    const baselines = [...reads.values()].filter((read) => read.baseline);
    const route = routeNews({ subscriptions: subs, changes, alerts: alertEvents });
    const drafts: OutboxDraft[] = [];
    drafts.push(
      ...(await summaries(
        baselines.map((read) => ({ project: read.scope, forEach: read.baseline!.forEach })),
        subs,
        at,
      )),
    );
    const news = new Map(
      [...route.byChannel].map(([channel, list]) => [channel, list.map((n) => cardPayload(n, at))]),
    );
    if (options.likelyCauses) {
      eventCalls += await addLikelyCauseLines({
        palette,
        news,
        rollUpOver: DIGEST_THRESHOLD,
        now: started,
        budget: eventBudget,
        logger,
      });
    }

    // Baseline clusters already unhealthy count as raised, so their recovery is reported.
    const baselineRaised: RaisedAlert[] = [];
    for (const read of baselines) {
      if (!kinds.get(read.scope)?.supported.has(CLUSTER_HEALTH)) continue;
      for (const c of await read.unhealthyAfter()) {
        if (raised.has(alertKey(c.uid, CLUSTER_HEALTH))) continue;
        const reason = reasonFrom(c.health, read.conditions.get(c.uid) ?? [], []);
        baselineRaised.push({ clusterUid: c.uid, kind: CLUSTER_HEALTH, reason, raisedAt: at });
      }
    }

    // the channel digest's log: every move before flapping folds them (all of them count there)
    const baselineUnhealthy: ClusterSnap[] = [];
    for (const read of baselines) baselineUnhealthy.push(...(await read.unhealthyAfter()));
    const digestCycle = { changes: rawChanges, alerts: alertEvents, baselineUnhealthy, at };

    let holdChanges: HoldChange[] = [];
    const wrote = new Map<string, readonly string[]>();
    // One transaction: the snapshot changes and the outbox rows that announce them.
    await db.transaction(async (tx) => {
      await options.fence?.(tx);
      const written = new SnapshotStore(tx);
      const outbox = new OutboxStore(tx);
      for (const scopeRead of reads.values()) {
        const written = await scopeRead.commit(tx, at, newer?.get(scopeRead.scope));
        if (written.length > 0) wrote.set(scopeRead.scope, written);
      }
      for (const read of baselines) await written.markBaseline(read.scope, at);
      for (const result of alertResults) {
        for (const alert of result.raise) await written.raiseAlert(alert);
        for (const r of result.resolve) await written.resolveAlert(r.clusterUid, r.kind);
      }
      for (const alert of baselineRaised) await written.raiseAlert(alert);
      await written.saveFlapHistories(flaps.histories);
      // snoozes and mutes are read here, in the commit, so a hold set or ended meanwhile counts:
      // run-out holds end (one summary each), held clusters' news is kept, the rest is folded
      const held = await holdCycle(tx, news, started, at);
      holdChanges = held.changes;
      drafts.push(...held.ended);
      for (const [channel, cards] of held.posted) drafts.push(...foldChannel(channel, cards, at));
      for (const draft of drafts) await outbox.add(draft, at);
      await logForDigest(new NotifyEventLog(tx), digestCycle);
      await outbox.prune(iso(started - SENT_RETENTION_MS));
    });

    noteAlertsAvailability(kindsRead);
    for (const [scope, read] of kindsRead) knownKinds.set(scope, read);
    // what Palette said between these two times is now announced (or known unchanged): one line
    // per cycle lets an operator, or the chaos suite's score, tell "never seen" from "lost"
    logger.info(
      {
        kind,
        readFrom: at,
        readTo: iso(readEnded),
        changes: changes.length,
        outboxRows: drafts.length,
      },
      "poll cycle committed",
    );
    // a reconciliation reading now must not overwrite what this cycle just wrote
    if (reconciling && kind === "incremental") {
      for (const [scope, uids] of wrote) {
        const taken = reconciling.get(scope) ?? new Set<string>();
        for (const uid of uids) taken.add(uid);
        reconciling.set(scope, taken);
      }
    }
    if (!lastCommitAt || at > lastCommitAt) lastCommitAt = at;
    if (kind === "reconcile") {
      reconcileDue = false;
      metrics.lastReconcileAt = at;
    }
    const clusters = await snapshots.count([...reads.keys()]);
    const durationMs = performance.now() - startedReal;
    metrics.lastCycleMs = durationMs;
    metrics.totalCycleMs += durationMs;
    metrics.clustersSeen = clusters;
    metrics.changesReported += changes.length;
    metrics.outboxRows += drafts.length;
    metrics.lastSuccessAt = at;
    metrics.lastCycleOk = true;
    metrics.lastError = undefined;
    if (drafts.length > 0) options.onCommitted?.(drafts.length);
    if (holdChanges.length > 0) options.onHoldsEnded?.(holdChanges);
    return {
      kind,
      ok: true,
      skipped: false,
      clusters,
      changes: changes.length,
      outboxRows: drafts.length,
      eventCalls,
      paletteCalls: read.counter.calls,
      durationMs,
    };
  }

  /**
   * After a committed cycle: a scope whose alert kinds Palette refuses is said once (log and
   * readiness), not every cycle; its return is logged once too. Only scopes whose kinds this
   * cycle read are judged.
   */
  function noteAlertsAvailability(kinds: ReadonlyMap<string, AlertKinds>): void {
    for (const [scope, scopeKinds] of kinds) {
      const refused = scopeKinds.refused;
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

  const skippedCycle = (kind: CycleKind): CycleResult => {
    metrics.skippedCycles += 1;
    return {
      kind,
      ok: true,
      skipped: true,
      clusters: 0,
      changes: 0,
      outboxRows: 0,
      eventCalls: 0,
      paletteCalls: 0,
      durationMs: 0,
    };
  };

  /** A cycle's outcome into the metrics and the onCycle hook; a failure becomes a result. */
  function settle(
    kind: CycleKind,
    counter: { calls: number },
    startedReal: number,
    work: Promise<CycleResult>,
  ): Promise<CycleResult> {
    return work
      .catch((error: unknown): CycleResult => {
        metrics.failedCycles += 1;
        const message = error instanceof Error ? error.message : String(error);
        logger.warn(
          { err: message, kind },
          "poll cycle failed; nothing committed, next cycle retries",
        );
        // what readiness and metrics repeat: the kind of failure, never Palette's own words
        const summary = failureSummary(error);
        return {
          kind,
          ok: false,
          skipped: false,
          clusters: 0,
          changes: 0,
          outboxRows: 0,
          eventCalls: 0,
          paletteCalls: counter.calls,
          durationMs: performance.now() - startedReal,
          error: summary,
        };
      })
      .then((result) => {
        if (result.skipped) return result;
        metrics.cycles += 1;
        if (kind === "reconcile") metrics.reconcileCycles += 1;
        else metrics.incrementalCycles += 1;
        metrics.lastCycleKind = kind;
        metrics.lastCyclePaletteCalls = result.paletteCalls;
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
  }

  /** `work` as the one cycle committing at a time; the poll is routine, commands go first */
  async function serialized(
    kind: CycleKind,
    counter: { calls: number },
    startedReal: number,
    work: () => Promise<CycleResult>,
  ): Promise<CycleResult> {
    running = settle(kind, counter, startedReal, inBackground(work));
    try {
      return await running;
    } finally {
      running = undefined;
    }
  }

  async function runCycle(): Promise<CycleResult> {
    if (reconcileDue && !reconciling) return reconcile();
    if (running) return skippedCycle("incremental");
    const counter = { calls: 0 };
    const onlyBaselined = reconciling !== undefined;
    return serialized("incremental", counter, performance.now(), async () => {
      const read = await readPhase("incremental", counter, onlyBaselined);
      // nothing to read but what the running reconciliation gives its first look
      if (onlyBaselined && read.reads.size === 0) return skippedCycle("incremental");
      return cycle(read);
    });
  }

  /**
   * A reconciliation reads the whole fleet without holding the poll, so incremental cycles keep
   * announcing changes meanwhile (at 50,000 clusters the read takes over a minute and a half);
   * then it waits for the cycle in flight and commits, leaving the clusters those cycles wrote as
   * they wrote them.
   */
  async function reconcile(): Promise<CycleResult> {
    const run = reconcileWhileIncrementalsGoOn();
    reconciliation = run;
    options.onReconciling?.(true);
    try {
      return await run;
    } finally {
      reconciliation = undefined;
      options.onReconciling?.(false);
    }
  }

  async function reconcileWhileIncrementalsGoOn(): Promise<CycleResult> {
    const newer = new Map<string, Set<string>>();
    reconciling = newer;
    const counter = { calls: 0 };
    const startedReal = performance.now();
    try {
      let read: CycleRead;
      try {
        read = await inBulk(() => readPhase("reconcile", counter));
      } catch (error) {
        return await settle("reconcile", counter, startedReal, Promise.reject(error));
      }
      while (running) await running;
      return await serialized("reconcile", counter, startedReal, () => cycle(read, newer));
    } finally {
      reconciling = undefined;
    }
  }

  const requestReconcile = () => {
    reconcileDue = true;
  };

  return {
    runCycle,
    requestReconcile,
    start() {
      if (tasks.length > 0) return;
      tasks = [
        cron.schedule(
          options.schedule ?? DEFAULT_POLL_SCHEDULE,
          async () => {
            await runCycle();
          },
          { noOverlap: true, name: "palette-poll" },
        ),
        // a tick during a running cycle leaves the reconciliation due: the next cycle is one
        cron.schedule(
          options.reconcileSchedule ?? DEFAULT_RECONCILE_SCHEDULE,
          async () => {
            requestReconcile();
            await runCycle();
          },
          { noOverlap: true, name: "palette-reconcile" },
        ),
      ];
    },
    async stop() {
      for (const task of tasks) {
        await task.stop();
        await task.destroy();
      }
      tasks = [];
      if (reconciliation) await reconciliation;
      if (running) await running;
    },
    // read on demand: the poller keeps no copy of the fleet between cycles
    lastSnapshot: async () => {
      const at = lastCommitAt;
      return at ? { clusters: await snapshots.inScopes(scopes), at } : { clusters: [] };
    },
    metrics: () => ({ ...metrics, alertsUnavailable: [...metrics.alertsUnavailable] }),
  };
}
