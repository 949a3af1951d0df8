import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { runEdgeCycle } from "../../src/edge/cycle.ts";
import { DEFAULT_EDGE_RISK_SETTINGS } from "../../src/model/edge-risk.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { readEdgeRisks } from "../../src/radar/edge-risks.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * The radar's edge risks (issue 39, item 5) through the real client against the simulator's
 * edge fleet, on both stores: the registration tokens (one expiring in 9 days, an inactive one
 * still a project's default), a remote shell left open, an agent version behind on one host of a
 * cluster, and a ready host unused past EDGE_UNUSED_DAYS by the bot's own first sight; what it
 * costs Palette; and a Palette 500 on the tokens naming what is missing while the rest counts.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let db: SqlDb;
  let project: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));

  beforeEach(async () => {
    sim = await startSimulator({
      clusters: 44,
      projects: 2,
      seed: 21,
      clock,
      edgeHosts: 120,
      edgeFlapping: 0,
    });
    palette = apiKeyClient(sim, { retries: 0 });
    db = await backend.open();
    project = sim.control.projects()[0]!;
  });

  afterEach(async () => {
    await palette.close();
    await sim.close();
  });

  afterAll(closeOpened);

  const cycle = () =>
    runEdgeCycle({
      palette,
      db,
      scope: project,
      now: clock.now(),
      siteTag: "site",
      graceMs: 2 * 60_000,
      reconcile: true,
    });
  const radar = () =>
    readEdgeRisks({
      palette,
      db,
      projects: [project],
      now: clock.now(),
      settings: DEFAULT_EDGE_RISK_SETTINGS,
    });

  it("finds each edge risk, at one request for the tokens and one per edge-native cluster", async () => {
    const hosts = sim.control.edge.fleet.edgeHosts.filter((host) => host.projectUid === project);
    const inUse = hosts.filter((host) => host.inUseClusterUid);
    const shellHost = inUse[0];
    const oldAgent = inUse.find((host) =>
      inUse.some(
        (other) => other.uid !== host.uid && other.inUseClusterUid === host.inUseClusterUid,
      ),
    );
    expect(oldAgent).toBeDefined();
    const readyHost = hosts.find((host) => sim.control.edge.view(host).state === "ready");
    expect(readyHost).toBeDefined();
    for (const host of inUse) sim.control.edge.setAgentVersion(host.uid, "v4.6.12");
    sim.control.edge.setAgentVersion(oldAgent!.uid, "v4.5.9");
    sim.control.edge.setShell(shellHost!.uid, "Created", clock.now() - 10 * HOUR);
    await cycle();

    sim.control.clearRequests();
    const first = await radar();
    const clusters = new Set(inUse.map((host) => host.inUseClusterUid));
    expect(first.calls).toBe(1 + clusters.size);
    expect(sim.control.requests()).toHaveLength(first.calls);
    expect(first.unread).toEqual([]);
    const kinds = (result: typeof first) =>
      result.risks.map((risk) => `${risk.kind} ${risk.subject.name} ${risk.summary}`);
    expect(kinds(first)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^edge-token .* registration token expires in 9 days$/),
        expect.stringMatching(/^edge-token .* inactive but still the default of project /),
        `edge-shell ${shellHost!.name} remote shell open for 10 hours`,
        expect.stringMatching(/^edge-agent-skew .* v4\.6\.12 on \d+ hosts?, v4\.5\.9 on 1 host$/),
      ]),
    );
    // unused: the bot has only just seen it ready; nothing yet
    expect(first.risks.filter((risk) => risk.kind === "edge-unused")).toEqual([]);

    // 31 days on, still ready and unused: a risk from the bot's first sight; the shell closed
    clock.advance(31 * DAY);
    sim.control.edge.setShell(shellHost!.uid, "Deleted");
    await cycle();
    const later = await radar();
    expect(kinds(later)).toEqual(
      expect.arrayContaining([
        `edge-unused ${readyHost!.name} ready but running no cluster for 31 days (by the bot's reads)`,
      ]),
    );
    expect(
      later.risks.filter(
        (risk) => risk.kind === "edge-shell" && risk.subject.uid === shellHost!.uid,
      ),
    ).toEqual([]);
  });

  it("a Palette 500 on the tokens: named, and the hosts' risks still count", async () => {
    const [host] = sim.control.edge.fleet.edgeHosts.filter(
      (h) => h.projectUid === project && h.inUseClusterUid,
    );
    sim.control.edge.setShell(host!.uid, "Created", clock.now() - 9 * HOUR);
    await cycle();
    sim.control.addFault({ pathPrefix: "/v1/edgehosts/tokens", kind: "status", status: 500 });
    const result = await radar();
    expect(result.unread.map((missing) => missing.what)).toEqual([
      `registration tokens (${project})`,
    ]);
    expect(result.risks.some((risk) => risk.kind === "edge-token")).toBe(false);
    expect(
      result.risks.some((risk) => risk.kind === "edge-shell" && risk.subject.uid === host!.uid),
    ).toBe(true);
  });
});
