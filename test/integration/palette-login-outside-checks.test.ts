import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { inBulk, withRequestChecks } from "../../src/palette/priority.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { serviceAccountClient } from "../support/palette-client-helpers.ts";

/**
 * The service account's login is shared by every caller. A change's claim checks (and the radar's
 * budget gate) are that caller's own: met on the login they would fail it for everyone, and the
 * login backoff would then answer the poll and every command with the change's error for minutes.
 */

class ClaimStale extends Error {}

let sim: RunningSimulator | undefined;
let palette: PaletteClient | undefined;
afterEach(async () => {
  await palette?.close();
  await sim?.close();
  palette = undefined;
  sim = undefined;
});

async function start() {
  const clock = new ManualClock();
  sim = await startSimulator({ clusters: 2, projects: 1, clock, tokenTtlMs: 60_000 });
  palette = serviceAccountClient(sim);
  const project = sim.control.projects()[0]!;
  const uid = sim.control.clusters(project)[0]!.uid;
  const read = () => palette!.getClusterState(uid, { projectUid: project });
  return { sim, palette, read };
}

const outcome = (work: Promise<unknown>) =>
  work.then(
    () => "ok",
    (error: unknown) => error,
  );

describe("the shared login runs outside the caller's request checks", () => {
  it("a change whose claim went stale gets its own error; the poll after it logs in and reads", async () => {
    const { palette, read } = await start();
    const stale = new ClaimStale("change 7: its last heartbeat is 95 s old");
    // the change's write is the first call: its login runs while the change's checks are on
    const change = await outcome(
      withRequestChecks(
        {
          gate: async () => {},
          lastCheck: async () => {
            throw stale;
          },
        },
        read,
      ),
    );
    expect(change).toBe(stale);
    expect(await outcome(read())).toBe("ok");
    expect(palette.stats().loginFailures).toBe(0);
  });

  it("a re-login on 401 inside a change is not refused by the change's last check", async () => {
    const { sim, palette, read } = await start();
    expect(await outcome(read())).toBe("ok");
    sim.control.expireTokens();
    const stale = new ClaimStale("change 8: lease moved");
    let checks = 0;
    // the first request goes out (and meets the 401); the claim is stale by the next one
    const change = await outcome(
      withRequestChecks(
        {
          gate: async () => {},
          lastCheck: async () => {
            checks += 1;
            if (checks > 1) throw stale;
          },
        },
        read,
      ),
    );
    expect(change).toBe(stale);
    expect(await outcome(read())).toBe("ok");
    expect(palette.stats().loginFailures).toBe(0);
  });

  it("the radar's budget gate is not met by the login, so a radar stopping cannot fail it for the poll", async () => {
    const { palette, read } = await start();
    const stopping = new Error("radar stopping");
    let booked = 0;
    // the read's own request is booked; the radar stops before the next one (the login's)
    const radar = await outcome(
      inBulk(read, async () => {
        booked += 1;
        if (booked > 1) throw stopping;
      }),
    );
    // the login is not the radar's request: its one read went out, booked once
    expect(radar).toBe("ok");
    expect(booked).toBe(1);
    expect(await outcome(read())).toBe("ok");
    expect(palette.stats().loginFailures).toBe(0);
  });
});
