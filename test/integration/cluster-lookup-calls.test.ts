import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaletteClient } from "../../src/palette/client.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { dispatch } from "../../src/registry/dispatch.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { FakePalette, sampleFleet, testContext } from "../support/fake-palette.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { asMessage } from "../support/reply-text.ts";

/**
 * What `/palette cluster <name>` costs on Palette with several watched projects: one tenant-wide
 * name search kept to the watched projects, then the overview; two calls, however big the fleet.
 */

let sim: RunningSimulator;
let palette: PaletteClient;

beforeAll(async () => {
  sim = await startSimulator({ clusters: 300, projects: 3, seed: 9 });
  palette = apiKeyClient(sim);
});

afterAll(async () => {
  await palette?.close();
  await sim?.close();
});

describe("a cluster looked up by name across the watched projects", () => {
  it("costs one search and one overview, and answers with the card", async () => {
    const projects = sim.control.projects();
    const target = sim.control.clusters(projects[2])[7]!;
    const ctx = await testContext({ palette, projects });
    sim.control.clearRequests();
    const reply = asMessage(await dispatch(`cluster ${target.name}`, ctx));
    expect(JSON.stringify(reply)).toContain(target.uid);
    const calls = sim.control.requests().map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual([
      "POST /v1/dashboard/spectroclusters/search",
      `GET /v1/dashboard/spectroclusters/${target.uid}/overview`,
    ]);
  });

  it("does not try a name with digits as a UID first: still one search and one overview", async () => {
    const projects = sim.control.projects();
    const named = sim.control.addCluster({
      name: "billing-prod-aws-11",
      projectUid: projects[1]!,
      provider: "aws",
    });
    const ctx = await testContext({ palette, projects });
    sim.control.clearRequests();
    const reply = asMessage(await dispatch("cluster billing-prod-aws-11", ctx));
    expect(JSON.stringify(reply)).toContain(named.uid);
    expect(sim.control.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/dashboard/spectroclusters/search",
      `GET /v1/dashboard/spectroclusters/${named.uid}/overview`,
    ]);
  });

  it("takes a 24-hex UID straight to GET, without a name search", async () => {
    const projects = sim.control.projects();
    const target = sim.control.clusters(projects[0])[2]!;
    const ctx = await testContext({ palette, projects: [projects[0]!] });
    sim.control.clearRequests();
    const reply = asMessage(await dispatch(`cluster ${target.uid}`, ctx));
    expect(JSON.stringify(reply)).toContain(target.name);
    const calls = sim.control.requests().map((r) => `${r.method} ${r.path}`);
    expect(calls).not.toContain("POST /v1/dashboard/spectroclusters/search");
    expect(calls[0]).toBe(`GET /v1/spectroclusters/${target.uid}`);
  });

  it("ignores a same-named cluster of a project the bot does not watch", async () => {
    const [watched, unwatched] = sim.control.projects();
    const inWatched = sim.control.clusters(watched)[3]!;
    const twin = sim.control.addCluster({
      name: inWatched.name,
      projectUid: unwatched!,
      provider: "aws",
    });
    const reply = asMessage(
      await dispatch(
        `cluster ${inWatched.name}`,
        await testContext({ palette, projects: [watched!, sim.control.projects()[2]!] }),
      ),
    );
    const text = JSON.stringify(reply);
    expect(text).toContain(inWatched.uid);
    expect(text).not.toContain(twin.uid);
  });
});

describe("an account that may not search the whole tenant", () => {
  it("falls back to one name search per watched project", async () => {
    const fake = new FakePalette(sampleFleet());
    const projects = [
      ...new Set(
        sampleFleet()
          .map((c) => c.projectUid)
          .filter(Boolean),
      ),
    ] as string[];
    fake.failOn("searchClusters", (args: unknown[]) =>
      (args[0] as { projectUid?: string }).projectUid === undefined
        ? new PaletteError(
            "forbidden",
            403,
            "Forbidden",
            "tenant scope refused",
            undefined,
            "POST /v1/dashboard/spectroclusters/search",
          )
        : undefined,
    );
    const target = sampleFleet().find((c) => c.projectUid === projects[0])!;
    const reply = asMessage(
      await dispatch(
        `cluster ${target.name}`,
        await testContext({ palette: fake, projects: [...projects, "p-other"] }),
      ),
    );
    expect(JSON.stringify(reply)).toContain(target.uid);
    const scopes = fake
      .callsTo("searchClusters")
      .map((call) => (call.args[0] as { projectUid?: string }).projectUid);
    expect(scopes[0]).toBeUndefined();
    expect(scopes.slice(1).sort()).toEqual([...projects, "p-other"].sort());
  });
});
