import {
  type ClusterSnap,
  isHealthUnknown,
  isHealthy,
  isKnownUnhealthy,
} from "../../model/cluster.ts";
import type { ChangeKind, ClusterChange } from "../../model/notification.ts";
import type { ClusterSummary } from "../../palette/schemas.ts";
import { tagsOf } from "../../palette/tags.ts";
import type { Absence } from "./absence.ts";

/** A search result → what the bot remembers. Results without a UID are skipped. */
export function snapOf(summary: ClusterSummary, project: string): ClusterSnap | undefined {
  const uid = summary.metadata?.uid;
  if (!uid) return undefined;
  return {
    uid,
    name: summary.metadata?.name ?? uid,
    project,
    state: summary.status?.state ?? "",
    health: summary.status?.health?.state ?? "",
    tags: tagsOf(summary.metadata?.labels),
  };
}

/**
 * Previous snapshot + the clusters Palette lists now → one change per cluster that changed.
 * A missing health or state in the answer means "Palette did not say", never "lost": the
 * previous value is kept, so a partial answer raises no false alert. Likewise a cluster missing
 * from the listing is gone only when `absent` says a look-up by UID found it deleted; otherwise
 * it stays as last seen, and a change shows when the listing shows it again.
 */
export function diffClusters(
  previous: ReadonlyMap<string, ClusterSnap>,
  current: readonly ClusterSnap[],
  absent: ReadonlyMap<string, Absence> = new Map(),
): { changes: ClusterChange[]; next: ClusterSnap[] } {
  const changes: ClusterChange[] = [];
  const next: ClusterSnap[] = [];
  const seen = new Set<string>();
  for (const raw of current) {
    if (seen.has(raw.uid)) continue;
    seen.add(raw.uid);
    const before = previous.get(raw.uid);
    const cluster: ClusterSnap = before
      ? { ...raw, state: raw.state || before.state, health: raw.health || before.health }
      : raw;
    next.push(cluster);
    if (!before) {
      // a cluster that comes up already unhealthy is news for the worse, not just "new"
      changes.push({ cluster, kinds: ["new"], worse: isKnownUnhealthy(cluster.health) });
      continue;
    }
    const kinds: ClusterChange["kinds"] = [];
    if (cluster.state !== before.state) {
      kinds.push(cluster.state === "Deleted" ? "deleted" : "state");
    }
    const health = healthKind(before.health, cluster.health);
    if (health) kinds.push(health);
    const worse = health === "health-lost";
    if (kinds.length > 0) {
      changes.push({
        cluster,
        previous: { state: before.state, health: before.health },
        kinds,
        worse,
      });
    }
  }
  for (const before of previous.values()) {
    if (seen.has(before.uid)) continue;
    if (absent.get(before.uid) !== "deleted") {
      next.push(before);
      continue;
    }
    changes.push({
      cluster: { ...before, state: "Deleted" },
      previous: { state: before.state, health: before.health },
      kinds: ["deleted"],
      worse: false,
    });
  }
  return { changes, next };
}

/**
 * How a health transition reads. Leaving Healthy is a loss; so is a cluster with no health yet
 * (provisioning) first reporting a bad one, or it would never raise an alert. Recovery needs a
 * known bad health before it. A cluster that had not said anything and now says Healthy or
 * Unknown is just coming up: no line (its state change, if any, still is one).
 */
function healthKind(before: string, after: string): ChangeKind | undefined {
  if (after === before) return undefined;
  if (isHealthy(before) && !isHealthy(after)) return "health-lost";
  if (isHealthUnknown(before) && isKnownUnhealthy(after)) return "health-lost";
  if (isKnownUnhealthy(before) && isHealthy(after)) return "health-recovered";
  if (before.trim() === "") return undefined;
  return "health";
}

/** Human lines for a change, plain text (views escape them). */
export function describeChange(change: ClusterChange): string[] {
  const { cluster, previous } = change;
  const lines: string[] = [];
  for (const kind of change.kinds) {
    switch (kind) {
      case "new":
        lines.push(
          `New cluster ${cluster.name}: ${cluster.state || "unknown state"}${
            isKnownUnhealthy(cluster.health) ? `, health ${cluster.health}` : ""
          }`,
        );
        break;
      case "state":
        lines.push(`State ${previous?.state || "?"} → ${cluster.state}`);
        break;
      case "deleted":
        lines.push(`Cluster ${cluster.name} is gone (Deleted)`);
        break;
      case "health-lost":
        lines.push(`Health lost: ${previous?.health || "?"} → ${cluster.health}`);
        break;
      case "health-recovered":
        lines.push(`Health recovered: ${previous?.health || "?"} → ${cluster.health}`);
        break;
      case "health":
        lines.push(`Health ${previous?.health || "?"} → ${cluster.health}`);
        break;
      case "flapping":
        lines.push(
          `${cluster.name} is flapping (changing again and again); quiet until it settles, now ${cluster.state}/${cluster.health || "?"}`,
        );
        break;
      case "settled":
        lines.push(`Settled: ${cluster.state}/${cluster.health || "?"}`);
        break;
    }
  }
  return lines;
}
