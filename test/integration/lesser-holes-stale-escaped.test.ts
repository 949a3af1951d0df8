import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { staleness } from "../../src/changes/confirm.ts";
import type { ChangePlan } from "../../src/model/change.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * "Not sent: the cluster changed": its lines name the pool as Palette has it. The mrkdwn and the
 * fallback text Slack parses must not ping or link from a name; the plain reason stored on the
 * change is not escaped twice.
 */

const POOL = "<!channel>*x*&co";
let sim: RunningSimulator;
let palette: PaletteClient;
let h: BotHarness;

beforeAll(async () => {
  sim = await startSimulator({ clusters: 3, seed: 5 });
  palette = apiKeyClient(sim, { retries: 0 });
  h = await startBot({ palette, projects: [sim.control.projects()[0]!] });
});

afterAll(async () => {
  await h?.close();
  await palette?.close();
  await sim?.close();
});

describe("the 'cluster changed' lines", () => {
  it("escape the pool's name in the mrkdwn and the fallback text", async () => {
    const project = sim.control.projects()[0]!;
    const cluster = sim.control.addCluster({
      name: "escaped-names",
      projectUid: project,
      provider: "aws",
      pools: [
        { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
        { name: POOL, size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
      ],
    });
    // confirmed when the pool had 2 nodes; Palette now says 3
    const plan = {
      verb: "scale",
      cluster: {
        uid: cluster.uid,
        name: cluster.name,
        projectUid: project,
        cloudType: "aws",
        state: "Running",
      },
      pool: POOL,
      from: 2,
      to: 5,
      configUid: cluster.uid,
    } as ChangePlan;
    const stale = await staleness(
      plan,
      { userId: "W111", channelId: "C111" },
      h.bot.edge.commandDeps,
    );
    expect(stale?.kind).toBe("refused");
    for (const said of [stale!.mrkdwn, stale!.text]) {
      expect(said).toContain("3 nodes");
      expect(said).not.toContain("<!channel>");
      expect(said).toContain("&lt;!channel&gt;*x*&amp;co");
    }
  });
});
