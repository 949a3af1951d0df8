import { afterEach, describe, expect, it } from "vitest";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { buildChannelDigest } from "../../../src/notify/digest/channel-digest.ts";
import {
  composeChannelDigest,
  readFleet,
} from "../../../src/notify/digest/channel-digest-source.ts";
import { NotifyEventLog } from "../../../src/store/notify-events.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const NOW = Date.parse("2026-03-10T08:00:00.000Z");
const STATES = ["Running", "Running", "Running", "Provisioning", "Deleting"];
const HEALTH = ["Healthy", "Healthy", "UnHealthy", "", "Healthy"];

/** 2,500 clusters in 3 projects: more than two of the store's 1,000-row batches */
function fleet(): Map<string, ClusterSnap[]> {
  const byProject = new Map<string, ClusterSnap[]>();
  for (let i = 0; i < 2_500; i++) {
    const project = `p${i % 3}`;
    const cluster: ClusterSnap = {
      uid: `uid-${i}`,
      name: `c-${i}`,
      project,
      state: STATES[i % STATES.length]!,
      health: HEALTH[(i * 7) % HEALTH.length]!,
      tags: i % 4 === 0 ? ["env:prod"] : ["env:dev"],
    };
    byProject.set(project, [...(byProject.get(project) ?? []), cluster]);
  }
  return byProject;
}

afterEach(closeOpened);

describe.each(BACKENDS)(
  "the channel digest on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("counts the fleet streamed from the store exactly as from the whole fleet at once", async () => {
      const db = await backend.open();
      const snapshots = new SnapshotStore(db);
      for (const [project, clusters] of fleet()) {
        await snapshots.replace(project, new Map(), clusters, "2026-03-01T00:00:00.000Z");
      }
      // long unhealthy: two clusters lost their health two days ago (uid-1 and uid-16 are UnHealthy and covered)
      await new NotifyEventLog(db).applyUnhealthy({
        start: [
          { clusterUid: "uid-1", since: "2026-03-08T00:00:00.000Z", exact: true },
          { clusterUid: "uid-16", since: "2026-03-08T01:00:00.000Z", exact: false },
        ],
        end: [],
      });
      const subscriptions = new SubscriptionStore(db, { now: () => NOW });
      await subscriptions.add({ channel: "C1", kind: "all", createdBy: "U1", tag: "env:prod" });
      await subscriptions.add({ channel: "C1", kind: "clusters", createdBy: "U1", project: "p1" });

      const streamed = await composeChannelDigest(db, { channel: "C1", now: NOW, preview: true });
      const shared = await readFleet(db);
      const whole = buildChannelDigest({
        channel: "C1",
        preview: true,
        timeZone: "UTC",
        subscriptions: (await subscriptions.forChannel("C1")).filter((sub) => !sub.pausedReason),
        clusters: await snapshots.all(),
        events: [],
        unhealthySince: shared.unhealthySince,
        flappingNow: shared.flappingNow,
        from: streamed!.from,
        to: streamed!.to,
        mutes: [],
      });
      expect(streamed!.total).toBeGreaterThan(1_000);
      expect(streamed!.total).toBe(whole.total);
      expect(streamed!.projects).toEqual(whole.projects);
      expect(streamed!.longUnhealthy).toEqual(whole.longUnhealthy);
      expect(streamed!.longUnhealthy.total).toBe(2);
    });
  },
);
