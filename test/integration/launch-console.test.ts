import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { runLaunchPrompts } from "../../src/console/launch-prompts.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { LaunchStore } from "../../src/store/launches.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { CommandDeps } from "../../src/verb-kit/types.ts";

describe("console launch prompts", () => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let deps: CommandDeps;
  beforeAll(async () => {
    const clock = new ManualClock();
    sim = await startSimulator({ clock, clusters: 10 });
    palette = createPaletteClient({
      baseUrl: sim.url,
      credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
      logger: silentLogger,
      rateLimit: false,
      retries: 0,
    });
    const db = await openSqlite(":memory:");
    deps = {
      palette,
      db,
      audit: new AuditLog(db, clock),
      policy: allowAll,
      clock,
      logger: silentLogger,
      projects: [sim.control.projects()[0]!],
      consoleUrl: "https://console.example.com/",
    };
  });
  afterAll(async () => {
    await palette?.close();
    await sim?.close();
  });

  it("walks the aws form, re-asks bad answers with the modal's messages, creates the cluster", async () => {
    const answers = [
      "aws", // provider by name
      "Not_A_Name", // rejected
      "console-aws",
      "1", // cloud account
      "1", // profile
      "mars-1", // bad region
      "us-east-1",
      "", // instance type default
      "my-key",
      "", // azs skipped
      "2", // control planes: "3" (second choice)
      "0", // workers out of range
      "2",
      "env:dev",
    ];
    const questions: string[] = [];
    const printed: string[] = [];
    const result = await runLaunchPrompts({
      ask: async (q) => {
        questions.push(q);
        const next = answers.shift();
        if (next === undefined) throw new Error(`unexpected question: ${q}`);
        return next;
      },
      print: (t) => printed.push(t),
      deps,
    });
    expect(result.kind).toBe("created");
    expect(answers).toEqual([]);
    const out = printed.join("\n");
    expect(out).toContain("Cluster name must be a DNS label");
    expect(out).toContain("Region must be an AWS region code");
    expect(out).toContain("Worker nodes must be a whole number from 1 to 50.");
    expect(out).toContain("console-aws");
    expect(out).toContain("Open in Palette");
    const created = sim.control.clusters().find((c) => c.name === "console-aws");
    expect(created?.provider).toBe("aws");
    expect(created?.labels).toMatchObject({ env: "dev" });
  });

  it("a create whose answer does not arrive is reported as unsettled, not as failed", async () => {
    sim.control.addFault({
      pathPrefix: "/v1/spectroclusters/aws",
      method: "POST",
      kind: "status",
      status: 502,
      times: 1,
    });
    const answers = [
      "aws",
      "console-unsure",
      "1",
      "1",
      "us-east-1",
      "",
      "my-key",
      "",
      "2",
      "2",
      "env:dev",
    ];
    const printed: string[] = [];
    const result = await runLaunchPrompts({
      ask: async (q) => {
        const next = answers.shift();
        if (next === undefined) throw new Error(`unexpected question: ${q}`);
        return next;
      },
      print: (t) => printed.push(t),
      deps,
    });
    expect(result.kind).toBe("unsettled");
    const out = printed.join("\n");
    expect(out).toContain("console-unsure");
    expect(out).toContain("did not arrive");
    expect(out).not.toMatch(/✗|failed|refused/);
    // the name stays reserved until Palette has been asked for it by name
    const kept = (await new LaunchStore(deps.db, deps.clock).all()).find(
      (r) => r.name === "console-unsure",
    );
    expect(kept?.status).toBe("submitting");
  });

  it("cancel stops without creating anything", async () => {
    const before = sim.control.clusters().length;
    const result = await runLaunchPrompts({
      ask: async () => "cancel",
      print: () => {},
      deps,
    });
    expect(result).toEqual({ kind: "cancelled", reason: "cancelled" });
    expect(sim.control.clusters()).toHaveLength(before);
  });

  it("input that ends half-way cancels plainly, without creating anything", async () => {
    const before = sim.control.clusters().length;
    const printed: string[] = [];
    const answers = ["1"];
    const result = await runLaunchPrompts({
      ask: async () => {
        const next = answers.shift();
        if (next === undefined) throw new Error("end of input");
        return next;
      },
      print: (text) => printed.push(text),
      deps,
    });
    expect(result).toEqual({
      kind: "cancelled",
      reason: "the input ended before the form was complete",
    });
    expect(printed.join("\n")).not.toContain("went wrong");
    expect(sim.control.clusters()).toHaveLength(before);
  });
});
