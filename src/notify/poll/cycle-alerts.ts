import { alertKey, CLUSTER_HEALTH, type RaisedAlert } from "../../model/alert.ts";
import type { ClusterSnap } from "../../model/cluster.ts";
import type { ClusterChange } from "../../model/notification.ts";
import type { AlertKinds } from "../alerts/alert-kinds.ts";
import { type EventBudget, type ReasonDeps, reasonsFor } from "../alerts/alert-reasons.ts";
import {
  type AlertResult,
  afterResults,
  clustersNeedingReason,
  evaluateAlerts,
  reasonFrom,
  reconcileAlerts,
  resolveDeletedSilently,
  unraisedUnhealthy,
} from "../alerts/alerts.ts";
import type { ScopeRead } from "./scope-read.ts";

/*
 * The alerts one cycle raises and resolves, scope by scope, from what it read: its changes judged
 * by the scope's alert kinds, and a scope whose alerts are readable again squared with its
 * clusters' health. The rules themselves are pure (alerts.ts); this applies them to a cycle and
 * spends its event reads on their reasons.
 */

export interface CycleAlertsInput {
  reads: ReadonlyMap<string, ScopeRead>;
  /** per scope whose alerts this cycle evaluates (AlertKindsMemory.forCycle) */
  kinds: ReadonlyMap<string, AlertKinds>;
  /** per scope whose kinds this cycle read */
  kindsRead: ReadonlyMap<string, AlertKinds>;
  /** whether the scope's alerts were unavailable until this cycle */
  wasOff: (scope: string) => boolean;
  raised: ReadonlyMap<string, RaisedAlert>;
  /** the cycle's changes in one scope */
  ownChanges: (scope: string) => ClusterChange[];
  /** health conditions by UID, across the scopes read */
  conditions: ReadonlyMap<string, string[]>;
  /** the clusters this cycle's changes left, by UID */
  changed: ReadonlyMap<string, ClusterSnap>;
  reasonDeps: ReasonDeps;
  budget: EventBudget;
  at: string;
}

export async function cycleAlerts(
  input: CycleAlertsInput,
): Promise<{ alertResults: AlertResult[]; eventCalls: number }> {
  const { reads, raised, conditions, budget, at } = input;
  const alertResults: AlertResult[] = [];
  let eventCalls = 0;
  for (const [scope, scopeKinds] of input.kinds) {
    const own = input.ownChanges(scope);
    if (scopeKinds.refused) {
      // no alert is raised or resolved while the kinds are refused, but a deleted cluster
      // cannot keep one: its row goes, silently
      alertResults.push(resolveDeletedSilently(own, raised));
      continue;
    }
    const needing = clustersNeedingReason(own, raised, scopeKinds.supported);
    const { reasons, calls: used } = await reasonsFor(
      input.reasonDeps,
      needing,
      conditions,
      input.changed,
      budget,
    );
    eventCalls += used;
    alertResults.push(
      evaluateAlerts({ changes: own, raised, supported: scopeKinds.supported, reasons, now: at }),
    );
  }
  // Alerts readable again after a refusal: squared with health, with this poll's own say first.
  const alertsBack = [...input.kindsRead].filter(([scope, k]) => !k.refused && input.wasOff(scope));
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
        input.reasonDeps,
        needing,
        conditions,
        clusters,
        budget,
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
  return { alertResults, eventCalls };
}

/**
 * Clusters a scope's first look finds already unhealthy count as raised (with the reason their
 * health conditions give), so their recovery is reported.
 */
export async function baselineRaised(
  baselines: readonly ScopeRead[],
  kinds: ReadonlyMap<string, AlertKinds>,
  raised: ReadonlyMap<string, RaisedAlert>,
  at: string,
): Promise<RaisedAlert[]> {
  const out: RaisedAlert[] = [];
  for (const read of baselines) {
    if (!kinds.get(read.scope)?.supported.has(CLUSTER_HEALTH)) continue;
    for (const c of await read.unhealthyAfter()) {
      if (raised.has(alertKey(c.uid, CLUSTER_HEALTH))) continue;
      const reason = reasonFrom(c.health, read.conditions.get(c.uid) ?? [], []);
      out.push({ clusterUid: c.uid, kind: CLUSTER_HEALTH, reason, raisedAt: at });
    }
  }
  return out;
}
