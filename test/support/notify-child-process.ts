import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/clock.ts";
import type { SubscriptionKind } from "../../src/model/subscription.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import type { FakeSlack } from "./fake-slack.ts";

/**
 * The notification bot as a child process a test can SIGKILL (test/support/notify-child.ts):
 * start it with its environment, kill it and wait for its exit, wait for a condition.
 */

const CHILD = join(import.meta.dirname, "notify-child.ts");
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startChild(env: Record<string, string>): Promise<ChildProcess> {
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

export async function kill(proc: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}

export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await sleep(50);
  }
}

/**
 * A fresh SQLite state file whose channel C1 is subscribed to `kind`, and the child's
 * environment to read `sim` and post to `fake` with it.
 */
export async function childEnv(input: {
  sim: RunningSimulator;
  fake: FakeSlack;
  kind: SubscriptionKind;
  projects: readonly string[];
}): Promise<Record<string, string>> {
  const dbPath = join(mkdtempSync(join(tmpdir(), "notify-child-")), "state.sqlite");
  const setup = await openSqlite(dbPath);
  await new SubscriptionStore(setup, systemClock).add({
    channel: "C1",
    kind: input.kind,
    createdBy: "U1",
  });
  await setup.close();
  return {
    PALETTE_API_URL: input.sim.url,
    PALETTE_API_KEY: input.sim.credentials.apiKey,
    SLACK_API_URL: input.fake.apiUrl,
    STATE_DB: dbPath,
    PALETTE_PROJECTS: input.projects.join(","),
    NOTIFY_MIN_GAP_MS: "50",
  };
}
