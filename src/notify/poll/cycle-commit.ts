import type { Logger } from "../../log.ts";
import type { ClusterSnap } from "../../model/cluster.ts";
import type { ClusterChange, HoldChange, OutboxDraft } from "../../model/notification.ts";
import { hearsPoll } from "../../model/subscription.ts";
import { NotifyEventLog } from "../../store/notify-events.ts";
import { OutboxStore } from "../../store/outbox.ts";
import { SnapshotStore } from "../../store/snapshots.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";
import type { SubscriptionStore } from "../../store/subscriptions.ts";
import type { AlertKinds, AlertKindsMemory } from "../alerts/alert-kinds.ts";
import { eventBudget } from "../alerts/alert-reasons.ts";
import { addLikelyCauseLines } from "../alerts/likely-cause-lines.ts";
import { DIGEST_THRESHOLD, foldChannel } from "../digest/digest.ts";
import { logForDigest } from "../digest/digest-events.ts";
import { holdCycle } from "../oncall/holds.ts";
import { baselineRaised, cycleAlerts } from "./cycle-alerts.ts";
import type { CycleRead } from "./cycle-read.ts";
import { applyFlapping } from "./flapping.ts";
import { cardPayload, routeNews } from "./route.ts";
import { summaries } from "./summary.ts";

/*
 * A cycle's second half: what it read (cycle-read.ts) diffed against what the poller remembers,
 * folded for flapping, judged for alerts, routed to the channels that follow it, and written:
 * the snapshot changes and the outbox rows that announce them in one transaction, so a cycle is
 * either announced and remembered or neither. The poller's own bookkeeping (metrics, what a
 * running reconciliation must leave alone) stays with the scheduling in poll.ts.
 */

export interface CycleCommitDeps {
  db: SqlDb;
  snapshots: SnapshotStore;
  subscriptions: SubscriptionStore;
  logger: Logger;
  /** the poll scopes: PALETTE_PROJECTS, or [""] for the tenant */
  scopes: readonly string[];
  alertKinds: AlertKindsMemory;
  eventsLimit: number;
  maxEventCalls: number;
  eventReadsWindowMs: number;
  likelyCauses?: boolean;
  /** WHY_SHOW_EMAIL: the likely-cause line names the actor's e-mail, not their Palette name */
  causeEmails?: boolean;
  /** run first inside the transaction; throws (FencedOut) when this replica no longer leads */
  fence?: (tx: SqlExecutor) => Promise<void>;
}

/** What a committed cycle did, for the poller's bookkeeping. */
export interface CycleCommitted {
  /** the changes announced (after flapping folded them) */
  changes: ClusterChange[];
  /** the outbox rows written */
  drafts: OutboxDraft[];
  /** snoozes and mutes the cycle ended */
  holdChanges: HoldChange[];
  /** per scope, the UIDs whose snapshot the cycle wrote or removed */
  wrote: Map<string, readonly string[]>;
  eventCalls: number;
  /** the alert kinds the cycle read, per scope (AlertKindsMemory.settled) */
  kindsRead: Map<string, AlertKinds>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const SENT_RETENTION_MS = 7 * 24 * 3600_000;

/**
 * Diffs, alerts, routes and commits what `read` found. `newer` (a reconciliation's): per scope,
 * the clusters incremental cycles wrote while it read, whose changes it leaves to them.
 */
export async function commitCycle(
  deps: CycleCommitDeps,
  read: CycleRead,
  newer?: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<CycleCommitted> {
  const { db, snapshots, scopes, alertKinds, logger } = deps;
  const { started, reads, palette, counter } = read;

  const at = iso(started);
  // a `risks` subscription hears the radar (src/radar/), not the poll
  const subs = (await deps.subscriptions.all()).filter(hearsPoll);
  const raised = await snapshots.raisedAlerts();
  const conditions = new Map<string, string[]>();
  for (const read of reads.values()) for (const [uid, c] of read.conditions) conditions.set(uid, c);
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

  const { kinds, kindsRead } = await alertKinds.forCycle(
    palette,
    reads,
    (scope) => ownChanges(scope).length > 0,
  );
  const budget = eventBudget(
    reads.values(),
    counter.calls,
    deps.maxEventCalls,
    deps.eventReadsWindowMs,
  );
  const alerts = await cycleAlerts({
    reads,
    kinds,
    kindsRead,
    wasOff: (scope) => alertKinds.isOff(scope),
    raised,
    ownChanges,
    conditions,
    changed,
    reasonDeps: { palette, logger, eventsLimit: deps.eventsLimit },
    budget,
    at,
  });
  const alertResults = alerts.alertResults;
  let eventCalls = alerts.eventCalls;
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
  if (deps.likelyCauses) {
    eventCalls += await addLikelyCauseLines({
      palette,
      news,
      rollUpOver: DIGEST_THRESHOLD,
      showEmail: deps.causeEmails ?? false,
      now: started,
      budget,
      logger,
    });
  }

  const raisedAtBaseline = await baselineRaised(baselines, kinds, raised, at);

  // the channel digest's log: every move before flapping folds them (all of them count there)
  const baselineUnhealthy: ClusterSnap[] = [];
  for (const read of baselines) baselineUnhealthy.push(...(await read.unhealthyAfter()));
  const digestCycle = { changes: rawChanges, alerts: alertEvents, baselineUnhealthy, at };

  let holdChanges: HoldChange[] = [];
  const wrote = new Map<string, readonly string[]>();
  // One transaction: the snapshot changes and the outbox rows that announce them.
  await db.transaction(async (tx) => {
    await deps.fence?.(tx);
    const store = new SnapshotStore(tx);
    const outbox = new OutboxStore(tx);
    for (const scopeRead of reads.values()) {
      const uids = await scopeRead.commit(tx, at, newer?.get(scopeRead.scope));
      if (uids.length > 0) wrote.set(scopeRead.scope, uids);
    }
    for (const read of baselines) await store.markBaseline(read.scope, at);
    for (const result of alertResults) {
      for (const alert of result.raise) await store.raiseAlert(alert);
      for (const r of result.resolve) await store.resolveAlert(r.clusterUid, r.kind);
    }
    for (const alert of raisedAtBaseline) await store.raiseAlert(alert);
    await store.saveFlapHistories(flaps.histories);
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

  return { changes, drafts, holdChanges, wrote, eventCalls, kindsRead };
}
