import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { childEnv, kill, sleep, startChild, until } from "../support/notify-child-process.ts";

let sim: RunningSimulator | undefined;
let fake: FakeSlack | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill("SIGKILL");
  await sim?.close();
  await fake?.close();
});

describe("a bot killed with SIGKILL and restarted", () => {
  it("delivers every change exactly once, also the messages in flight at the kill", async () => {
    sim = await startSimulator({ clusters: 30, projects: 1, seed: 9 });
    fake = await startFakeSlack();
    const env = await childEnv({
      sim,
      fake,
      kind: "clusters",
      projects: sim.control.projects(),
    });
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
    // not a while: a change made now is polled and its card sent through C1's queue, after
    // anything a late re-post would have put there; then nothing else may have arrived
    const probe = running[8]!;
    sim.control.setState(probe.uid, "Upgrading");
    await until(() => cardsFor(probe.uid).length >= 1, 30_000);
    expect(cardsFor(probe.uid)).toHaveLength(1);

    const summaries = posts().filter((p) => JSON.stringify(p.blocks).includes("Watching"));
    expect(summaries).toHaveLength(1);
    for (const c of [...a, ...b]) expect(cardsFor(c.uid)).toHaveLength(1);
    const lineCounts = a.map((c) => linesFor(c.name).length);
    const duplicates = lineCounts.reduce((sum, n) => sum + (n - 1), 0);
    expect(lineCounts.every((n) => n >= 1)).toBe(true);
    expect(duplicates).toBe(0);
    expect(posts()).toHaveLength(1 + 8 + 4 + duplicates + 1);
  }, 60_000);
});
