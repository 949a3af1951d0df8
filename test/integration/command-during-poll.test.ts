import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPoller } from "../../src/notify/poll/poll.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { dispatch } from "../../src/registry/dispatch.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { testContext } from "../support/fake-palette.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { asMessage } from "../support/reply-text.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * A command sent while the poll pages through the fleet is served first: on the simulator's own
 * request log, its calls come within one poll request of the moment it was sent, and the poll goes
 * on after it. The client paces both on Palette's documented 10 req/s for /v1/dashboard.
 */

let sim: RunningSimulator;
let palette: PaletteClient;

beforeAll(async () => {
  // 1,500 clusters in one project: 30 search pages, three seconds of the /v1/dashboard budget
  sim = await startSimulator({ clusters: 1_500, projects: 1, seed: 4, enforceRateLimits: true });
  palette = apiKeyClient(sim);
});

afterAll(async () => {
  await palette?.close();
  await sim?.close();
});

describe("a command during a poll", () => {
  it("is answered before the poll's remaining pages, which go on after it; no 429", async () => {
    const projects = sim.control.projects();
    const poller = createPoller({
      palette,
      db: await openSqlite(":memory:"),
      clock: systemClock,
      logger: silentLogger,
      projects,
    });
    const search = "POST /v1/dashboard/spectroclusters/search";
    const log = () => sim.control.requests().map((r) => `${r.method} ${r.path}`);
    sim.control.clearRequests();
    const cycle = poller.runCycle();
    // a few pages in, the user asks
    await until("the poll under way", () => log().filter((line) => line === search).length >= 5);
    const target = sim.control.clusters(projects[0])[1_234]!;
    const sentAt = log().length;
    const reply = asMessage(
      await dispatch(`cluster ${target.name}`, await testContext({ palette, projects })),
    );
    const answeredAt = log().length;
    const result = await cycle;

    expect(JSON.stringify(reply)).toContain(target.uid);
    expect(result.ok).toBe(true);
    const overview = `GET /v1/dashboard/spectroclusters/${target.uid}/overview`;
    const lines = log();
    const overviewAt = lines.indexOf(overview);
    // between the command's send and its last call: the page in flight when it was sent, and at
    // most one page booked ahead of each of its two calls (the simulator logs at answer time)
    const searchesBetween = lines.slice(sentAt, overviewAt).filter((line) => line === search);
    const pollPagesBetween = searchesBetween.length - 1; // one of them is the command's own
    expect(pollPagesBetween).toBeLessThanOrEqual(3);
    expect(answeredAt).toBeLessThan(lines.length);
    const pagesAfter = lines.slice(overviewAt + 1).filter((line) => line === search).length;
    expect(pagesAfter).toBeGreaterThan(10);
    expect(sim.control.requests().filter((r) => r.status === 429)).toEqual([]);
  }, 30_000);
});
