/**
 * Benchmark of the edge fleet's read (issue 39): 10,000 edge hosts beside 10,000 clusters over 3
 * projects in the in-process simulator (documented rate limits enforced), the real Palette
 * client (paced, the poll's reads in the background lane), the edge cycle of src/edge/cycle.ts
 * and a SQLite store. Measures Palette requests of a baseline and a steady cycle against the
 * edge part of the bar (2 per project + one page per 50 unhealthy hosts), how many cycles a
 * 200-host site outage takes to be told (grace 0: the cycle count is the read's, not the
 * grace's), and a person's `GET /v1/edgehosts/{uid}` while a cycle runs. Not yet: the bot as the
 * image runs it (the edge cycle is not wired into the poll), so RSS here is this process's,
 * simulator included. `npm run bench -- edge`.
 */
import { pathToFileURL } from "node:url";
import { runEdgeCycle } from "../src/edge/cycle.ts";
import { silentLogger } from "../src/log.ts";
import { createPaletteClient } from "../src/palette/client.ts";
import { inBackground } from "../src/palette/priority.ts";
import { Secret } from "../src/secret.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { openSqlite } from "../src/store/sqlite.ts";

export interface EdgeBenchResult {
  bench: "edge";
  clusters: number;
  edgeHosts: number;
  projects: number;
  baselineRequests: number;
  baselineMs: number;
  steadyRequests: number;
  /** 2 per project + ceil(unhealthy / 50) per project (at least one page each) */
  steadyBar: number;
  steadyAtBar: boolean;
  steadyMs: number;
  outageHosts: number;
  /** cycles after the outage until every host of the site was told (bar: 2) */
  outageToldInCycles: number;
  outageGroupedAsOneSite: boolean;
  /** a person's GET /v1/edgehosts/{uid} while a cycle reads (bar: 1,000 ms) */
  hostReadDuringCycleMs: number;
  rssMb: number;
  peakRssMb: number;
  rateLimited: number;
  note: string;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

export async function runEdgeBench(
  clusters = 10_000,
  edgeHosts = 10_000,
): Promise<EdgeBenchResult> {
  const projects = 3;
  const sim = await startSimulator({
    clusters,
    projects,
    seed: 39,
    enforceRateLimits: true,
    edgeHosts,
    edgeFlapping: 0,
  });
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
  });
  const db = await openSqlite(":memory:");
  let peak = process.memoryUsage().rss;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const scopes = sim.control.projects();
  const cycleAll = async () => {
    let requests = 0;
    const news = [];
    const sites = [];
    for (const scope of scopes) {
      const result = await inBackground(() =>
        runEdgeCycle({ palette, db, scope, now: Date.now(), siteTag: "site", graceMs: 0 }),
      );
      requests += result.requests;
      news.push(...result.news);
      sites.push(...result.grouped.sites);
    }
    return { requests, news, sites };
  };

  try {
    let started = performance.now();
    const baseline = await cycleAll();
    const baselineMs = Math.round(performance.now() - started);

    started = performance.now();
    const steady = await cycleAll();
    const steadyMs = Math.round(performance.now() - started);
    const unhealthyPerProject = scopes.map(
      (scope) =>
        sim.control.edge.fleet.edgeHosts.filter(
          (host) => host.projectUid === scope && sim.control.edge.view(host).health === "unhealthy",
        ).length,
    );
    const steadyBar = unhealthyPerProject.reduce(
      (sum, n) => sum + 1 + Math.max(1, Math.ceil(n / 50)),
      0,
    );

    // a 200-host site goes dark: how many cycles until every host is told, and in how many groups
    const [first] = scopes;
    sim.control.edge.addSite("store-9999", first!, 200);
    await cycleAll();
    sim.control.edge.setSiteHealth("store-9999", "unhealthy");
    let told = 0;
    let cycles = 0;
    let oneSite = true;
    while (told < 200 && cycles < 5) {
      cycles += 1;
      const round = await cycleAll();
      told += round.news.filter((item) => item.host.site === "store-9999").length;
      const siteGroups = round.sites.filter((group) => group.site === "store-9999");
      if (siteGroups.length > 1) oneSite = false;
    }

    // a person's host read while a cycle reads in the background
    const host = sim.control.edge.fleet.edgeHosts.find((h) => h.projectUid === first)!;
    const cycle = cycleAll();
    const asked = performance.now();
    await palette.getEdgeHost(host.uid, { projectUid: first });
    const hostReadDuringCycleMs = Math.round(performance.now() - asked);
    await cycle;

    return {
      bench: "edge",
      clusters,
      edgeHosts: sim.control.edge.fleet.edgeHosts.length,
      projects,
      baselineRequests: baseline.requests,
      baselineMs,
      steadyRequests: steady.requests,
      steadyBar,
      steadyAtBar: steady.requests <= steadyBar,
      steadyMs,
      outageHosts: 200,
      outageToldInCycles: told >= 200 ? cycles : -1,
      outageGroupedAsOneSite: oneSite,
      hostReadDuringCycleMs,
      rssMb: mb(process.memoryUsage().rss),
      peakRssMb: mb(peak),
      rateLimited: sim.control.requests().filter((r) => r.status === 429).length,
      note: "edge read only (not yet wired into the poll); RSS is this process's, simulator included",
    };
  } finally {
    clearInterval(sample);
    await palette.close();
    await db.close();
    await sim.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${JSON.stringify(await runEdgeBench(), null, 2)}\n`);
}
