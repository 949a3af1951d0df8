import type { ClusterSnap } from "../../model/cluster.ts";
import type { FlapHistory } from "../../model/flap-history.ts";
import type { ClusterChange } from "../../model/notification.ts";

/** A cluster that changes more than `maxChanges` times within `windowMs` is flapping. */
export const FLAP_WINDOW_MS = 10 * 60_000;
export const FLAP_MAX_CHANGES = 3;

export interface FlapResult {
  /** changes to announce: ordinary ones, one "flapping" per newly flapping cluster, "settled" */
  changes: ClusterChange[];
  /** histories to store; a cluster missing here has its history deleted */
  histories: Map<string, FlapHistory>;
}

const COUNTED = new Set(["state", "health-lost", "health-recovered", "health"]);

/**
 * Pure: folds this poll's changes into each cluster's transition history. Past the threshold
 * one "flapping" change replaces the cluster's news; later changes are swallowed until a whole
 * window passes without a transition, which yields one "settled" change with the current values.
 */
export function applyFlapping(
  changes: readonly ClusterChange[],
  previous: ReadonlyMap<string, FlapHistory>,
  current: ReadonlyMap<string, ClusterSnap>,
  now: number,
  windowMs = FLAP_WINDOW_MS,
  maxChanges = FLAP_MAX_CHANGES,
): FlapResult {
  const histories = new Map<string, FlapHistory>();
  const out: ClusterChange[] = [];
  const touched = new Set<string>();
  const since = now - windowMs;

  for (const change of changes) {
    const uid = change.cluster.uid;
    const counted = change.kinds.some((kind) => COUNTED.has(kind));
    const before = previous.get(uid);
    if (!counted || change.kinds.includes("deleted")) {
      // appearing and disappearing are not flapping, and a deleted cluster needs no history
      out.push(change);
      touched.add(uid);
      continue;
    }
    touched.add(uid);
    const transitions = [...(before?.transitions ?? []).filter((at) => at > since), now];
    const reported = before?.reported ?? false;
    if (reported) {
      histories.set(uid, { transitions, reported });
    } else if (transitions.length > maxChanges) {
      histories.set(uid, { transitions, reported: true });
      out.push({ ...change, kinds: ["flapping"], worse: true });
    } else {
      histories.set(uid, { transitions, reported: false });
      out.push(change);
    }
  }

  for (const [uid, before] of previous) {
    if (touched.has(uid)) continue;
    const transitions = before.transitions.filter((at) => at > since);
    if (transitions.length > 0) {
      histories.set(uid, { transitions, reported: before.reported });
      continue;
    }
    const cluster = current.get(uid);
    if (before.reported && cluster) {
      out.push({ cluster, kinds: ["settled"], worse: false });
    }
  }
  return { changes: out, histories };
}
