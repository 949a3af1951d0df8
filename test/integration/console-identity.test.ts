import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { consoleTranscript } from "../support/console-session.ts";
import { uniqueRunningCluster } from "../support/palette-client-helpers.ts";

/**
 * The console (as `npm run demo -- --linked` runs it) with IDENTITY=linked: `login` asks for the
 * key on the next line, and the answers read as docs/identity.md shows them.
 */

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, seed: 14 });
});
afterAll(async () => sim?.close());

function consoleRun(lines: string[]): Promise<string> {
  return consoleTranscript(sim, lines, {
    prepare: (session) => {
      session.deps.identity = buildIdentity(
        {
          mode: "linked",
          method: "key",
          keys: { current: new Secret(randomBytes(32).toString("base64")) },
        },
        { db: session.db, clock: systemClock, logger: silentLogger, paletteApiUrl: sim.url },
      );
    },
  });
}

describe("the console with IDENTITY=linked", () => {
  it("refuses an unlinked kubeconfig, links by a pasted key, then answers as that person", async () => {
    const cluster = uniqueRunningCluster(sim);
    const key = sim.control.issueUserKey("viewer@example.com");
    const out = await consoleRun([
      `kubeconfig ${cluster.name}`,
      "login",
      key,
      "whoami",
      `kubeconfig ${cluster.name}`,
      "login",
      "not-a-palette-key-at-all",
    ]);
    expect(out).toContain("not linked to a Palette user yet");
    expect(out).toContain("Palette API key:");
    expect(out).toContain("Linked as Vera Viewer");
    expect(out).toContain("You act in Palette as Vera Viewer");
    expect(out).toContain("Palette does not allow Vera Viewer to download kubeconfigs");
    expect(out).toContain("Not linked: Palette refused that key");
    // the key shows once, as the typed line a pipe echoes; no answer prints it back
    expect(out.split(key).length - 1).toBe(1);
  });
});
