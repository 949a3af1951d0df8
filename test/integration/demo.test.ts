import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { startFakeSlack } from "../support/fake-slack.ts";
import { type CliProcess, logged, spawnCli, until } from "../support/start-process-harness.ts";

/**
 * The command line as a user meets it: `echo "/palette clusters" | npm run demo`, the launch
 * form answered through the console prompts, `console` against a Palette, and the one-line
 * errors of a bad invocation or a bad environment.
 */

const children: CliProcess[] = [];

afterAll(async () => {
  for (const child of children) await child.kill();
});

/** Runs the CLI with `lines` on stdin (then end of input) and waits for the exit. */
async function run(
  args: string[],
  lines: string[] = [],
  env: Record<string, string> = {},
  exitWithinMs = 20_000,
) {
  const child = spawnCli(args, env, { stdin: "pipe" });
  children.push(child);
  child.child.stdin!.end(lines.map((line) => `${line}\n`).join(""));
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    child.exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`palette-chatops ${args.join(" ")} did not exit:\n${child.output()}`)),
        exitWithinMs,
      );
    }),
  ]);
  clearTimeout(timer);
  return { ...exit, stdout: child.stdout(), stderr: child.stderr() };
}

/** Lines of a rendered cluster list: `🟢 name · Running · ✅ Healthy · aws`. */
const LIST_LINE = /^\S+ [a-z0-9-]+ · [A-Z][a-z]+ · .+ · [a-z-]+$/gm;

describe("palette-chatops demo", () => {
  it("answers /palette clusters from stdin and exits 0 at end of input", async () => {
    const result = await run(["demo"], ["/palette clusters"]);
    expect(result).toMatchObject({ code: 0, signal: null });
    // the subscribed console hears the baseline first, then the answer
    expect(result.stdout).toContain("This console is subscribed");
    expect(result.stdout).toContain("Watching 40 clusters");
    expect(result.stdout).toMatch(/^Clusters \(\d+\)$/m);
    expect(result.stdout.match(LIST_LINE)?.length ?? 0).toBeGreaterThanOrEqual(5);
    // logs (warn and up) go to stderr; a clean run has none
    expect(result.stderr).toBe("");
  }, 30_000);

  it("launches a cluster through the prompts; the cluster then exists", async () => {
    const result = await run(
      ["demo", "--no-notify"],
      [
        "/palette launch",
        "1", // project
        "aws", // provider, by name
        "demo-from-test", // cluster name
        "1", // cloud account
        "1", // cluster profile
        "us-east-1", // region
        "", // instance type: the default
        "my-key", // SSH key name
        "", // availability zones: skipped
        "1", // control-plane nodes: the first choice
        "2", // worker nodes
        "env:test", // tags
        "/palette cluster demo-from-test",
      ],
    );
    expect(result).toMatchObject({ code: 0, signal: null });
    expect(result.stdout).toContain("Launching cluster `demo-from-test`");
    expect(result.stdout).not.toContain("launch cancelled");
    // --no-notify: no subscription, and the banner does not promise one
    expect(result.stdout).not.toContain("Watching");
    expect(result.stdout).not.toContain("This console is subscribed");
    // the cluster command, run after the launch, finds it in the simulator
    const card = result.stdout.slice(result.stdout.indexOf("\ndemo-from-test\n"));
    expect(card).toMatch(/State: .*Pending|State: .*Provisioning/);
    expect(card).toContain("Provider: aws");
    expect(card).toContain("tags `env:test`");
  }, 30_000);
});

describe("palette-chatops console", () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ clusters: 5, projects: 1, seed: 11 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it("runs the commands against the Palette named by PALETTE_* variables", async () => {
    const result = await run(["console"], ["clusters", "help"], {
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      STATE_DB: ":memory:",
    });
    expect(result).toMatchObject({ code: 0, signal: null });
    expect(result.stdout).toMatch(/^Clusters \(5\)$/m);
    for (const cluster of sim.control.clusters()) expect(result.stdout).toContain(cluster.name);
    expect(result.stdout).toContain("/palette kubeconfig");
    expect(result.stderr).toBe("");
  }, 30_000);
});

describe("palette-chatops with a bad invocation", () => {
  it("an unknown command exits 2 with the usage", async () => {
    const result = await run(["frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toMatch(/^usage: palette-chatops <command>$/m);
    for (const verb of ["start", "console", "demo", "simulator"]) {
      expect(result.stderr).toMatch(new RegExp(`^ {2}${verb} `, "m"));
    }
  });

  it("no command exits 2 with the usage; help exits 0", async () => {
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^usage: palette-chatops/);
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: palette-chatops/);
  });

  it("start without SLACK_BOT_TOKEN exits 1 with one line naming the variable", async () => {
    const result = await run(["start"], [], {
      PALETTE_API_KEY: "pk-do-not-echo-me",
      SLACK_SIGNING_SECRET: "do-not-echo-me-either",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.split("\n").filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^palette-chatops: SLACK_BOT_TOKEN: required/);
    expect(result.stderr).not.toContain("do-not-echo-me");
  });

  it("start with a malformed variable exits 1 naming it and what it wants", async () => {
    const result = await run(["start"], [], {
      SLACK_BOT_TOKEN: "xoxb-do-not-echo-me",
      SLACK_SIGNING_SECRET: "secret",
      PALETTE_API_KEY: "pk",
      PORT: "eighty",
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^palette-chatops: PORT: wants a TCP port number/),
    ]);
    expect(result.stderr).not.toContain("xoxb-do-not-echo-me");
  });

  it("start whose Slack token is refused exits 1 with one line, not a stack trace", async () => {
    const fake = await startFakeSlack();
    fake.on("auth.test", () => ({ body: { ok: false, error: "invalid_auth" } }));
    try {
      const result = await run(
        ["start"],
        [],
        {
          SLACK_BOT_TOKEN: "xoxb-refused",
          SLACK_SIGNING_SECRET: "secret",
          SLACK_API_URL: fake.apiUrl,
          // the poll starts while Slack is asked: it reaches no Palette here, and none outside
          PALETTE_API_URL: "http://127.0.0.1:9",
          PALETTE_API_KEY: "pk",
          PORT: "0",
          STATE_DB: ":memory:",
        },
        // the token is tried for about 15 s before start-up gives up
        45_000,
      );
      expect(result.code).toBe(1);
      const lines = result.stderr.split("\n").filter((line) => line.length > 0);
      expect(lines.at(-1)).toBe(
        "palette-chatops: SLACK_BOT_TOKEN: Slack's auth.test failed (invalid_auth) on 5 tries over 15 s; check the token and SLACK_API_URL",
      );
      expect(result.stderr).not.toContain("    at ");
      // a refused token is tried a few times (Slack has refused good ones for a moment), no more
      expect(fake.callsTo("auth.test")).toHaveLength(5);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it("start waits out a Slack outage at start (503) instead of crash-looping", async () => {
    const fake = await startFakeSlack();
    const palette = await startSimulator({ clusters: 3, projects: 1, seed: 2 });
    // more than the WebClient's own retries (three tries per auth.test)
    let refusals = 5;
    fake.on("auth.test", () =>
      refusals-- > 0
        ? { status: 503, body: { ok: false, error: "service_unavailable" } }
        : undefined,
    );
    const bot = spawnCli(["start"], {
      SLACK_BOT_TOKEN: "xoxb-patient",
      SLACK_SIGNING_SECRET: "secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: palette.url,
      PALETTE_API_KEY: palette.credentials.apiKey,
      PORT: "0",
      STATE_DB: ":memory:",
    });
    try {
      await until("the started log line", () => logged(bot, "palette-chatops started")[0], 20_000);
      expect(logged(bot, "Slack's auth.test failed at start; trying again").length).toBeGreaterThan(
        0,
      );
    } finally {
      await bot.kill();
      await fake.close();
      await palette.close();
    }
  }, 30_000);
});
