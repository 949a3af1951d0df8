import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";

const CHILD = join(import.meta.dirname, "../support/notify-child.ts");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sim: RunningSimulator | undefined;
let fake: FakeSlack | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill("SIGKILL");
  await sim?.close();
  await fake?.close();
});

function startChild(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(proc);
    });
  });
}

async function kill(proc: ChildProcess) {
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}

async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(50);
  }
}

describe("a bot killed with SIGKILL and restarted", () => {
  it("delivers every change exactly once, also the messages in flight at the kill", async () => {
    sim = await startSimulator({ clusters: 30, projects: 1, seed: 9 });
    fake = await startFakeSlack();
    const dbPath = join(mkdtempSync(join(tmpdir(), "notify-crash-")), "state.sqlite");
    const setup = await openSqlite(dbPath);
    await new SubscriptionStore(setup, systemClock).add({
      channel: "C1",
      kind: "clusters",
      createdBy: "U1",
    });
    await setup.close();
    const env = {
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      SLACK_API_URL: fake.apiUrl,
      STATE_DB: dbPath,
      PALETTE_PROJECTS: sim.control.projects().join(","),
      NOTIFY_MIN_GAP_MS: "50",
    };
    const f = fake;
    const posts = () => f.callsTo("chat.postMessage").map((c) => c.body);
    // a card names the cluster's uid; the summary only names (unhealthy) clusters
    const cardsFor = (uid: string) =>
      posts().filter((b) => !b.thread_ts && JSON.stringify(b.blocks).includes(uid));
    const linesFor = (name: string) =>
      posts().filter((b) => b.thread_ts && JSON.stringify(b.blocks).includes(name));

    child = await startChild(env);
    await f.waitFor("chat.postMessage", 1, 10_000); // the baseline summary
    const running = sim.control.clusters().filter((c) => c.state === "Running");
    const a = running.slice(0, 4);
    const b = running.slice(4, 8);

    // phase 1: changes delivered normally
    for (const c of a) sim.control.setState(c.uid, "Upgrading");
    await until(() => a.every((c) => cardsFor(c.uid).length === 1));

    // phase 2: killed in the middle of a poll. Every search takes 3 s and a cycle makes two or
    // more, so when one is recorded (at its answer, which reads the changed fleet) the cycle
    // still waits on the next one and cannot have committed.
    sim.control.addFault({
      pathPrefix: "/v1/dashboard/spectroclusters/search",
      kind: "latency",
      latencyMs: 3000,
    });
    sim.control.clearRequests();
    for (const c of b) sim.control.setState(c.uid, "Upgrading");
    const simulator = sim;
    await until(() =>
      simulator.control.requests().some((r) => r.path === "/v1/dashboard/spectroclusters/search"),
    );
    await kill(child);
    expect(b.map((c) => cardsFor(c.uid).length)).toEqual([0, 0, 0, 0]);
    sim.control.clearFaults();
    child = await startChild(env);
    await until(() => b.every((c) => cardsFor(c.uid).length >= 1));

    // phase 3: killed in the middle of delivery (Slack answers slowly), restarted
    let slow = true;
    f.on("chat.postMessage", async () => {
      if (slow) await sleep(300);
      return undefined;
    });
    for (const c of a) sim.control.setState(c.uid, "Running");
    await until(() => linesFor(a[0]!.name).length + linesFor(a[1]!.name).length >= 2);
    await kill(child);
    slow = false;
    child = await startChild(env);
    // a row the killed bot had on the wire waits up to 15 s (post-once.ts) for that call to
    // land before it looks for it and posts
    await until(() => a.every((c) => linesFor(c.name).length >= 1), 30_000);
    await sleep(1500); // a few more polls: nothing else may arrive

    const summaries = posts().filter((p) => JSON.stringify(p.blocks).includes("Watching"));
    expect(summaries).toHaveLength(1);
    for (const c of [...a, ...b]) expect(cardsFor(c.uid)).toHaveLength(1);
    const lineCounts = a.map((c) => linesFor(c.name).length);
    const duplicates = lineCounts.reduce((sum, n) => sum + (n - 1), 0);
    expect(lineCounts.every((n) => n >= 1)).toBe(true);
    expect(duplicates).toBe(0);
    expect(posts()).toHaveLength(1 + 8 + 4 + duplicates);
  }, 60_000);
});
