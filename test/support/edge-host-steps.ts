import { expect } from "vitest";
import { runEdgeCycle } from "../../src/edge/cycle.ts";
import type { ChangesHarness as Harness } from "./changes-harness.ts";

/**
 * Steps the edge-host command tests share (`why <edge host>`, `/palette edge host`): the edge
 * poll's cycle for one project into the bot's own store, a host of a new site in use by a cluster,
 * and the simulator's record of the requests under a path.
 */

const MINUTE = 60_000;

export const edgeCycle = (h: Harness, project = h.project) =>
  runEdgeCycle({
    palette: h.palette,
    db: h.bot.db,
    scope: project,
    now: h.clock.now(),
    siteTag: "site",
    graceMs: 2 * MINUTE,
    reconcile: false,
  });

/** one host of a new site, in use by an edge-native cluster of the project */
export function siteHost(h: Harness, site: string, project = h.project) {
  const [host] = h.sim.control.edge.addSite(site, project, 1);
  const clusterUid = host!.inUseClusterUid;
  expect(clusterUid).toBeDefined();
  const cluster = h.sim.control.clusters(project).find((one) => one.uid === clusterUid);
  return { host: host!, cluster: { uid: clusterUid!, name: cluster!.name } };
}

export const requestsTo = (h: Harness, prefix: string) =>
  h.sim.control.requests().filter((request) => request.path.startsWith(prefix));
