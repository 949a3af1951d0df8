import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import {
  collectingLogger,
  countRequests,
  recordingTransport,
  serviceAccountClient,
} from "../support/palette-client-helpers.ts";

const AUTH = "/v1/auth/authenticate";
const TTL = 60_000;

describe("Palette client with a service account", () => {
  let running: RunningSimulator | undefined;
  let palette: PaletteClient | undefined;

  afterEach(async () => {
    await palette?.close();
    await running?.close();
    palette = undefined;
    running = undefined;
  });

  async function start() {
    const clock = new ManualClock();
    const sim = await startSimulator({ clusters: 12, projects: 1, clock, tokenTtlMs: TTL });
    running = sim;
    return { sim, clock, project: sim.control.projects()[0]! };
  }

  it("logs in once, sends the raw token, and survives expiry mid-run with no failed call", async () => {
    const { sim, clock, project } = await start();
    const { transport, secretsSent } = recordingTransport(sim.url);
    palette = serviceAccountClient(sim, { transport });
    const uid = sim.control.clusters(project)[0]!.uid;

    for (let i = 0; i < 3; i++) {
      await palette.getClusterState(uid, { projectUid: project });
    }
    expect(countRequests(sim, "POST", AUTH)).toBe(1);
    expect(sim.control.requests().filter((r) => r.auth === "token")).toHaveLength(3);
    const [firstToken] = [...secretsSent];
    expect(firstToken).toBeTruthy();
    expect(firstToken?.startsWith("Bearer")).toBe(false);

    clock.advance(TTL + 1_000);
    const results = [];
    for (let i = 0; i < 5; i++) {
      results.push(await palette.getClusterState(uid, { projectUid: project }));
    }
    expect(results).toHaveLength(5);
    expect(countRequests(sim, "POST", AUTH)).toBe(2);
    expect(sim.control.requests().filter((r) => r.status === 401)).toHaveLength(1);
    expect(palette.stats()).toMatchObject({ logins: 2, reauthentications: 1, failures: {} });
  });

  it("re-logs in exactly once when 50 concurrent calls hit an expired token", async () => {
    const { sim, clock, project } = await start();
    palette = serviceAccountClient(sim, { rateLimit: false });
    const uids = sim.control.clusters(project).map((c) => c.uid);
    await palette.getClusterState(uids[0]!, { projectUid: project });
    clock.advance(TTL + 1_000);
    sim.control.clearRequests();

    const states = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        palette!.getClusterState(uids[i % uids.length]!, { projectUid: project }),
      ),
    );
    expect(states.every((s) => typeof s === "string")).toBe(true);
    expect(countRequests(sim, "POST", AUTH)).toBe(1);
    const rejected = sim.control.requests().filter((r) => r.status === 401).length;
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThanOrEqual(50);
    expect(palette.stats().logins).toBe(2);
  });

  it("refreshes on its cron timer and keeps working with the new token", async () => {
    const { sim, project } = await start();
    const { transport, secretsSent } = recordingTransport(sim.url);
    palette = serviceAccountClient(sim, { transport, tokenRefreshSchedule: "* * * * * *" });
    const uid = sim.control.clusters(project)[0]!.uid;
    await palette.getClusterState(uid, { projectUid: project });

    const deadline = Date.now() + 5_000;
    while (palette.stats().refreshes === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(palette.stats().refreshes).toBeGreaterThan(0);
    expect(sim.control.requests().some((r) => r.path.startsWith("/v1/auth/refresh/"))).toBe(true);
    // the refresh carries the token it refreshes, as Spectro Cloud's Go SDK sends it
    const refreshes = sim.control.requests().filter((r) => r.path.startsWith("/v1/auth/refresh/"));
    for (const refresh of refreshes) expect(refresh.auth).toBe("token");
    await palette.getClusterState(uid, { projectUid: project });
    expect(countRequests(sim, "POST", AUTH)).toBe(1);
    expect(secretsSent.size).toBeGreaterThanOrEqual(2);
  });

  it("falls back to a full login when the refresh fails", async () => {
    const { sim, project } = await start();
    palette = serviceAccountClient(sim, { tokenRefreshSchedule: "* * * * * *" });
    const uid = sim.control.clusters(project)[0]!.uid;
    await palette.getClusterState(uid, { projectUid: project });
    sim.control.addFault({ pathPrefix: "/v1/auth/refresh", kind: "status", status: 500 });

    const deadline = Date.now() + 5_000;
    while (palette.stats().refreshFailures === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // the fallback login follows the failed refresh
    while (palette.stats().logins < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(palette.stats().refreshFailures).toBeGreaterThan(0);
    expect(palette.stats().logins).toBeGreaterThanOrEqual(2);
    await expect(palette.getClusterState(uid, { projectUid: project })).resolves.toBeTruthy();
  });

  it("never logs a token or the password, even through failures", async () => {
    const { sim, clock, project } = await start();
    const { logger, lines } = collectingLogger("debug");
    const { transport, secretsSent } = recordingTransport(sim.url);
    palette = serviceAccountClient(sim, {
      transport,
      logger,
      tokenRefreshSchedule: "* * * * * *",
      rateLimit: false,
    });
    const uid = sim.control.clusters(project)[0]!.uid;
    await palette.getClusterState(uid, { projectUid: project });
    clock.advance(TTL + 1_000);
    await palette.getClusterState(uid, { projectUid: project });
    sim.control.addFault({
      pathPrefix: "/v1/spectroclusters",
      kind: "status",
      status: 500,
      times: 2,
    });
    await palette.getClusterState(uid, { projectUid: project });
    sim.control.addFault({ pathPrefix: "/v1/auth/refresh", kind: "status", status: 500, times: 1 });
    const deadline = Date.now() + 5_000;
    while (palette.stats().refreshFailures === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const badLogin = serviceAccountClient(sim, { logger });
    sim.control.addFault({ pathPrefix: "/v1/auth/authenticate", kind: "status", status: 401 });
    const loginError = await badLogin.listProjects().catch((e: unknown) => e);
    await badLogin.close();
    expect(loginError).toBeInstanceOf(PaletteError);
    expect(loginError).toMatchObject({ kind: "unauthorized" });

    expect(palette.stats().refreshFailures).toBeGreaterThan(0);
    expect(secretsSent.size).toBeGreaterThanOrEqual(2);
    const text = lines.join("\n");
    expect(text).toContain("palette login succeeded");
    expect(text).toContain("palette call failed, retrying");
    for (const secret of [...secretsSent, sim.credentials.password]) {
      expect(text).not.toContain(secret);
      expect(String(loginError)).not.toContain(secret);
    }
  });
});
