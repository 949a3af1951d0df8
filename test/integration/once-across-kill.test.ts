import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, type StoredMessage, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { postSigned, slashCommandBody } from "../support/slack-request.ts";
import { type CliProcess, freePort, spawnCli, until } from "../support/start-process-harness.ts";

/**
 * Issue 37 item 1, at process level: replicas of `palette-chatops start` deliver notifications
 * to four channels; Slack takes the leader's posts in all four but holds its answers, the
 * leader is SIGKILLed, then Slack lets them through (the messages are in the channels, the
 * answers reach nobody). The next leader must find those messages by their metadata and not
 * post them again: every change in every channel exactly once, cards and thread lines, as the
 * channels show them. And with no kill, Slack answering 5 s late still shows each message once.
 */

const CHANNELS = ["C0ONCE1", "C0ONCE2", "C0ONCE3", "C0ONCE4"];

interface Replica {
  port: number;
  url: string;
  proc: CliProcess;
}

interface Run {
  sim: RunningSimulator;
  fake: FakeSlack;
  replicas: Replica[];
  signingSecret: string;
  launch(replica: Replica): void;
  close(): Promise<void>;
}

let current: Run | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function startRun(count: number, store: Record<string, string>): Promise<Run> {
  const signingSecret = randomBytes(16).toString("hex");
  const sim = await startSimulator({
    clusters: 12,
    projects: 1,
    seed: 37,
    credentials: { password: `pw-${randomBytes(8).toString("hex")}` },
  });
  for (const cluster of sim.control.clusters()) {
    sim.control.setState(cluster.uid, "Running");
    sim.control.setHealth(cluster.uid, "Healthy");
  }
  const fake = await startFakeSlack();
  const env = (port: number) => ({
    SLACK_BOT_TOKEN: "xoxb-once-test",
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.apiUrl,
    PALETTE_API_URL: sim.url,
    PALETTE_EMAIL: sim.credentials.email,
    PALETTE_ORG: sim.credentials.org,
    PALETTE_PASSWORD: sim.credentials.password,
    PALETTE_PROJECTS: sim.control.projects().join(","),
    PORT: String(port),
    POLL_SCHEDULE: "* * * * * *",
    LEADER_LEASE_TTL_MS: "3000",
    LEADER_RENEW_MS: "1000",
    ...store,
  });
  const every: CliProcess[] = [];
  const replicas: Replica[] = [];
  const launch = (replica: Replica) => {
    replica.proc = spawnCli(["start"], env(replica.port));
    every.push(replica.proc);
  };
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const replica = { port, url: `http://127.0.0.1:${port}` } as Replica;
    replicas.push(replica);
    launch(replica);
  }
  current = {
    sim,
    fake,
    replicas,
    signingSecret,
    launch,
    async close() {
      for (const proc of every) await proc.kill();
      await fake.close();
      await sim.close();
    },
  };
  return current;
}

async function roleOf(replica: Replica): Promise<string | undefined> {
  const response = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
  const body = (await response.json()) as { leader?: { role?: string } };
  return body.leader?.role ?? (response.ok ? "leader" : undefined);
}

async function findLeader(among: readonly Replica[]): Promise<Replica | undefined> {
  for (const replica of among) {
    if ((await roleOf(replica).catch(() => undefined)) === "leader") return replica;
  }
  return undefined;
}

async function subscribeAll(run: Run): Promise<void> {
  for (const [i, channel] of CHANNELS.entries()) {
    const id = `sub-${i}`;
    const replica = run.replicas[i % run.replicas.length]!;
    await postSigned(
      `${replica.url}/slack/events`,
      run.signingSecret,
      slashCommandBody({
        text: "subscribe clusters",
        channelId: channel,
        responseUrl: `${run.fake.url}/response/${id}`,
      }),
    );
    const answer = await until(
      `the subscribe answer in ${channel}`,
      () => run.fake.callsTo("response").find((call) => call.body._responseId === id),
      15_000,
    );
    expect(JSON.stringify(answer.body)).toContain("Subscribed");
  }
}

/** what makes two messages the same message: a duplicate has all of it equal */
const identity = (message: StoredMessage) =>
  JSON.stringify([message.thread_ts ?? "", message.text ?? "", message.blocks ?? []]);

function duplicates(fake: FakeSlack): string[] {
  const twice: string[] = [];
  for (const channel of CHANNELS) {
    const seen = new Set<string>();
    for (const message of fake.messages(channel)) {
      const key = identity(message);
      if (seen.has(key)) twice.push(`${channel}: ${(message.text ?? "").slice(0, 100)}`);
      seen.add(key);
    }
  }
  return twice;
}

/** top-level messages (cards) or thread lines in `channel` that name `uid` or `name` */
const naming = (fake: FakeSlack, channel: string, needle: string, thread: boolean) =>
  fake
    .messages(channel)
    .filter((m) => (m.thread_ts !== undefined) === thread && JSON.stringify(m).includes(needle));

/** every channel has `needle`'s card (or thread line) at least once */
const everywhere = (fake: FakeSlack, needle: string, thread: boolean) =>
  CHANNELS.every((channel) => naming(fake, channel, needle, thread).length >= 1);

/**
 * Holds chat.postMessage answers while on: the message is Slack's (it lands in the channel when
 * the hold ends, as Slack would have taken it), its answer waits.
 */
function answerGate(fake: FakeSlack) {
  let open: () => void = () => {};
  let gate: Promise<void> | undefined;
  const held = new Set<string>();
  fake.on("chat.postMessage", async (call) => {
    if (gate) {
      held.add(String(call.body.channel));
      await gate;
    }
    return undefined;
  });
  return {
    held,
    close() {
      held.clear();
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    open() {
      gate = undefined;
      open();
    },
  };
}

/**
 * Waits for a positive sign that the outbox has drained: one more cluster changes and its card
 * reaches every channel. Each channel's rows go out in order, so anything posted twice before it
 * has been posted by then.
 */
async function drained(run: Run, sentinel: { uid: string }): Promise<void> {
  run.sim.control.setState(sentinel.uid, "Upgrading");
  await until(
    "the sentinel's card in every channel",
    () => everywhere(run.fake, sentinel.uid, false),
    60_000,
  );
}

async function killLeaderMidPost(
  run: Run,
  gate: ReturnType<typeof answerGate>,
  change: () => void,
) {
  const leader = (await until("a leader", () => findLeader(run.replicas), 30_000))!;
  gate.close();
  change();
  // Slack has taken a post in every channel and holds every answer
  await until("a post held in every channel", () => gate.held.size === CHANNELS.length, 30_000);
  await leader.proc.kill();
  gate.open();
  // the dead leader comes back as a follower (on SQLite: the one replica, restarted)
  run.launch(leader);
}

async function exactlyOnceAcrossKills(count: number, store: Record<string, string>) {
  const run = await startRun(count, store);
  for (const replica of run.replicas) {
    await until("a replica answering /readyz", () => roleOf(replica), 60_000);
  }
  await until("a leader", () => findLeader(run.replicas), 30_000);
  const gate = answerGate(run.fake);
  await subscribeAll(run);
  const clusters = run.sim.control.clusters();
  const changed = clusters.slice(0, 3);
  const sentinel1 = clusters[3]!;
  const sentinel2 = clusters[4]!;
  // cards: three clusters start upgrading; the leader dies while Slack holds its four posts
  await killLeaderMidPost(run, gate, () => {
    for (const cluster of changed) run.sim.control.setState(cluster.uid, "Upgrading");
  });
  await until(
    "every card in every channel",
    () => changed.every((c) => everywhere(run.fake, c.uid, false)),
    60_000,
  );
  await drained(run, sentinel1);

  // thread lines: the same clusters are Running again; the leader dies mid-post again
  await killLeaderMidPost(run, gate, () => {
    for (const cluster of changed) run.sim.control.setState(cluster.uid, "Running");
  });
  await until(
    "every thread line in every channel",
    () => changed.every((c) => everywhere(run.fake, c.name, true)),
    60_000,
  );
  await drained(run, sentinel2);

  expect(duplicates(run.fake)).toEqual([]);
  for (const channel of CHANNELS) {
    for (const cluster of changed) {
      expect(
        naming(run.fake, channel, cluster.uid, false),
        `${channel} ${cluster.name}`,
      ).toHaveLength(1);
      expect(
        naming(run.fake, channel, cluster.name, true),
        `${channel} ${cluster.name}`,
      ).toHaveLength(1);
    }
  }
}

/** Slack answering every post 5 s late, no kill: each message still shows once */
async function onceWhenSlackIsLate(count: number, store: Record<string, string>) {
  const run = await startRun(count, store);
  for (const replica of run.replicas) {
    await until("a replica answering /readyz", () => roleOf(replica), 60_000);
  }
  await until("a leader", () => findLeader(run.replicas), 30_000);
  await subscribeAll(run);
  let late = 0;
  run.fake.on("chat.postMessage", async () => {
    late += 1;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    return undefined;
  });
  const clusters = run.sim.control.clusters();
  const changed = clusters.slice(0, 2);
  for (const cluster of changed) run.sim.control.setState(cluster.uid, "Upgrading");
  await until(
    "every card in every channel",
    () => changed.every((c) => everywhere(run.fake, c.uid, false)),
    90_000,
  );
  for (const cluster of changed) run.sim.control.setState(cluster.uid, "Running");
  await until(
    "every thread line in every channel",
    () => changed.every((c) => everywhere(run.fake, c.name, true)),
    90_000,
  );
  await drained(run, clusters[3]!);
  expect(late).toBeGreaterThan(0);
  expect(duplicates(run.fake)).toEqual([]);
  for (const channel of CHANNELS) {
    for (const cluster of changed) {
      expect(naming(run.fake, channel, cluster.uid, false)).toHaveLength(1);
      expect(naming(run.fake, channel, cluster.name, true)).toHaveLength(1);
    }
  }
}

const sqliteStore = () => ({
  STATE_DB: join(mkdtempSync(join(tmpdir(), "once-")), "state.sqlite"),
});

describe("exactly once as Slack shows it, across a SIGKILL while Slack holds the answers", () => {
  it("one replica on SQLite, killed and restarted", async () => {
    await exactlyOnceAcrossKills(1, sqliteStore());
  }, 180_000);

  it("Slack answering 5 s late, no kill: one replica on SQLite, still once", async () => {
    await onceWhenSlackIsLate(1, sqliteStore());
  }, 240_000);

  it(
    "Slack answering 5 s late, no kill: two replicas on PostgreSQL, still once",
    async () => {
      const { url } = await freshDatabase();
      await onceWhenSlackIsLate(2, { DATABASE_URL: url });
    },
    240_000 + POSTGRES_SETUP_TIMEOUT_MS,
  );

  it.each([2, 3])(
    "%i replicas on PostgreSQL, the leader killed",
    async (count) => {
      const { url } = await freshDatabase();
      await exactlyOnceAcrossKills(count, { DATABASE_URL: url });
    },
    180_000 + POSTGRES_SETUP_TIMEOUT_MS,
  );
});
