import { randomBytes } from "node:crypto";
import { createRng } from "../src/simulator/prng.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { createDatabase, startPostgres } from "../test/support/postgres-global-setup.ts";
import { postSigned, slashCommandBody } from "../test/support/slack-request.ts";
import {
  type CliProcess,
  freePort,
  spawnCli,
  until,
} from "../test/support/start-process-harness.ts";
import { awayAndBack } from "./chaos/changes.ts";
import { committedInPostgres } from "./chaos/committed.ts";
import type { MadeChange } from "./chaos/score.ts";
import { type CommittedScore, scoreCommitted } from "./chaos/score-committed.ts";
import { installSlackWindows } from "./chaos/slack-windows.ts";

/**
 * Failover (issue 12): several replicas of the bot, each its own process and port, on one
 * PostgreSQL database. The driver changes clusters in the simulator while it SIGKILLs whichever
 * replica holds the leader lease, then starts it again (it comes back as a follower). Measured per
 * kill: how long until a survivor's /readyz says it leads and until its first committed poll;
 * `/palette cluster <name>` sent to the survivors during the gap and how fast they answer; and,
 * scored by scoreCommitted: what Slack accepted against what the replicas committed.
 */

export interface FailoverOptions {
  replicas: number;
  channels: number;
  clusters: number;
  projects: number;
  /** state/health changes; each changed cluster changes twice (away and back) */
  changes: number;
  /** the changes (and the kills) are spread over this long */
  periodMs: number;
  kills: number;
  leaseTtlMs: number;
  renewMs: number;
  /** POLL_SCHEDULE: a six-field cron, every `pollEverySeconds` */
  pollEverySeconds: number;
  /** after the last change, how long delivery may take before what is missing counts as lost */
  drainTimeoutMs: number;
  seed: number;
  /** a database to use; without it the run starts its own embedded PostgreSQL */
  databaseUrl?: string;
}

/** `npm run bench -- failover` */
export const FAILOVER_BENCH: FailoverOptions = {
  replicas: 3,
  channels: 5,
  clusters: 150,
  projects: 5,
  changes: 200,
  periodMs: 120_000,
  kills: 10,
  leaseTtlMs: 3_000,
  renewMs: 1_000,
  pollEverySeconds: 2,
  drainTimeoutMs: 30_000,
  seed: 12,
};

export interface KillFigure {
  /** kill → a survivor's /readyz says `leader.role: "leader"` */
  toLeaderMs: number;
  /** kill → the new leader's first committed poll (its "poll cycle committed" log line) */
  toFirstPollMs: number;
}

export interface FailoverReport {
  options: Omit<FailoverOptions, "databaseUrl">;
  kills: KillFigure[];
  failoverMs: {
    toLeader: { p50: number; max: number };
    toFirstPoll: { p50: number; max: number };
  };
  /** against what the replicas committed (notify_events), issue 37 item 8 */
  score: CommittedScore;
  duplicatesPerKill: number;
  /** `/palette cluster <name>` sent to the surviving replicas right after each kill */
  commands: { sent: number; answered: number; answerMs: { p50: number; max: number } };
  commandFailures: string[];
  /** replicas that exited without being killed by the driver */
  unexpectedExits: number;
  durationMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

interface Replica {
  port: number;
  url: string;
  proc: CliProcess;
  /** every process this replica ran (the score reads all their polls) */
  history: CliProcess[];
}

interface LeaderView {
  role: string;
  replica?: string;
}

async function leaderOf(replica: Replica): Promise<LeaderView | undefined> {
  const response = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(1_000) });
  const body = (await response.json()) as { leader?: LeaderView };
  return body.leader;
}

/** the time of the first "poll cycle committed" line after `after` (ms), if any */
function firstPollAfter(proc: CliProcess, after: number): number | undefined {
  for (const line of proc.logs()) {
    if (line.msg !== "poll cycle committed") continue;
    const at = Date.parse(String(line.time));
    if (at > after) return at;
  }
  return undefined;
}

export async function runFailover(
  options: FailoverOptions,
  progress: (line: string) => void = () => {},
): Promise<FailoverReport> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const ownPostgres = options.databaseUrl ? undefined : await startPostgres();
  let databaseUrl = options.databaseUrl;
  if (ownPostgres) {
    await createDatabase(ownPostgres, "failover");
    databaseUrl = `postgres://postgres:${ownPostgres.password}@127.0.0.1:${ownPostgres.port}/failover`;
  }
  const signingSecret = randomBytes(16).toString("hex");
  const sim = await startSimulator({
    clusters: options.clusters,
    projects: options.projects,
    seed: options.seed,
    credentials: { password: `pw-${randomBytes(8).toString("hex")}` },
  });
  const fake = await startFakeSlack();
  // no bad windows: only the record of what Slack accepted
  const slack = installSlackWindows(fake, []);
  const projects = sim.control.projects();
  const live = sim.control.clusters();
  for (const cluster of live) {
    sim.control.setState(cluster.uid, "Running");
    sim.control.setHealth(cluster.uid, "Healthy");
  }

  const env = (port: number) => ({
    SLACK_BOT_TOKEN: `xoxb-failover-${randomBytes(8).toString("hex")}`,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.apiUrl,
    PALETTE_API_URL: sim.url,
    PALETTE_EMAIL: sim.credentials.email,
    PALETTE_ORG: sim.credentials.org,
    PALETTE_PASSWORD: sim.credentials.password,
    PALETTE_PROJECTS: projects.join(","),
    PORT: String(port),
    DATABASE_URL: databaseUrl!,
    POLL_SCHEDULE: `*/${options.pollEverySeconds} * * * * *`,
    LEADER_LEASE_TTL_MS: String(options.leaseTtlMs),
    LEADER_RENEW_MS: String(options.renewMs),
    // info: the "poll cycle committed" lines (the score and the failover times read them)
    LOG_LEVEL: "info",
  });

  let stopping = false;
  let unexpectedExits = 0;
  const killed = new Set<CliProcess>();
  const replicas: Replica[] = [];
  const launch = (replica: Replica) => {
    const proc = spawnCli(["start"], env(replica.port));
    replica.proc = proc;
    replica.history.push(proc);
    void proc.exited.then(() => {
      if (!stopping && !killed.has(proc)) unexpectedExits += 1;
    });
  };
  const polls = (): Array<[number, number]> =>
    replicas.flatMap((replica) =>
      replica.history.flatMap((proc) =>
        proc
          .logs()
          .filter((line) => line.msg === "poll cycle committed")
          .map((line) => [Date.parse(String(line.readFrom)), Date.parse(String(line.readTo))])
          .filter((window): window is [number, number] => window.every(Number.isFinite)),
      ),
    );
  const findLeader = async (among: readonly Replica[]) => {
    for (const replica of among) {
      const view = await leaderOf(replica).catch(() => undefined);
      if (view?.role === "leader") return replica;
    }
    return undefined;
  };

  let responseSeq = 0;
  const responseFor = (id: string) =>
    fake.callsTo("response").find((call) => call.body._responseId === id);
  const slash = (replica: Replica, text: string, channelId: string, id: string) =>
    postSigned(
      `${replica.url}/slack/events`,
      signingSecret,
      slashCommandBody({ text, channelId, responseUrl: `${fake.url}/response/${id}` }),
    );
  const commandTimes: number[] = [];
  const commandFailures: string[] = [];
  let commandsSent = 0;
  const askCluster = async (replica: Replica) => {
    const target = rng.pick(live);
    const id = `cmd-${++responseSeq}`;
    const sentAt = Date.now();
    commandsSent += 1;
    try {
      const status = (await slash(replica, `cluster ${target.name}`, "C0FAILCMD", id)).status;
      const answer = await until("answer", () => responseFor(id), 15_000).catch(() => undefined);
      const body = answer ? JSON.stringify(answer.body) : "";
      // the card, or (a name several projects use) the choice between them
      if (
        answer &&
        status === 200 &&
        (body.includes(target.uid) || body.includes(`are named ${target.name}`))
      ) {
        commandTimes.push(answer.at - sentAt);
      } else {
        commandFailures.push(answer ? body.slice(0, 300) : `no answer (HTTP ${status})`);
      }
    } catch (error) {
      commandFailures.push(`request failed: ${String(error)}`);
    }
  };

  try {
    for (let i = 0; i < options.replicas; i++) {
      const port = await freePort();
      const replica = { port, url: `http://127.0.0.1:${port}`, history: [] } as unknown as Replica;
      replicas.push(replica);
      launch(replica);
    }
    for (const replica of replicas) {
      await until("a replica answering /readyz", () => leaderOf(replica), 60_000);
    }
    await until("a leader", () => findLeader(replicas), 30_000);

    const channels = new Map<string, string>();
    for (let i = 0; i < options.channels; i++) {
      const channel = `C0FAIL${i}`;
      const project = projects[i % projects.length]!;
      channels.set(channel, project);
      const id = `sub-${i}`;
      await slash(
        replicas[i % replicas.length]!,
        `subscribe clusters project:${project}`,
        channel,
        id,
      );
      const answer = await until(`the subscribe answer in ${channel}`, () => responseFor(id));
      if (!JSON.stringify(answer.body).includes("Subscribed")) {
        throw new Error(`subscribe in ${channel} failed: ${JSON.stringify(answer.body)}`);
      }
    }
    progress(`failover: ${options.replicas} replicas, ${options.channels} channels; changes start`);

    // the changes: each chosen cluster goes away and, half a period later, back
    const made: MadeChange[] = [];
    const t0 = Date.now() + 500;
    const { plan } = awayAndBack({
      sim,
      live,
      changes: options.changes,
      t0,
      periodMs: options.periodMs,
      rng,
      reason: "failover",
      made,
    });
    plan.sort((a, b) => a.at - b.at);
    const changing = (async () => {
      for (const step of plan) {
        await sleep(step.at - Date.now());
        step.run();
      }
    })();

    // the kills, one after another (each waits for the new leader and the restarted follower)
    const kills: KillFigure[] = [];
    const killEvery = options.periodMs / (options.kills + 1);
    const pending: Promise<void>[] = [];
    for (let k = 0; k < options.kills; k++) {
      await sleep(t0 + killEvery * (k + 1) - Date.now());
      const leader = await until("the leader", () => findLeader(replicas), 30_000);
      const survivors = replicas.filter((replica) => replica !== leader);
      const victim = leader.proc;
      killed.add(victim);
      const killedAt = Date.now();
      await victim.kill();
      // commands to every survivor during the gap: at once, and halfway through the lease
      for (const survivor of survivors) pending.push(askCluster(survivor));
      const later = sleep(options.leaseTtlMs / 2).then(() =>
        Promise.all(survivors.map((survivor) => askCluster(survivor))),
      );
      pending.push(later.then(() => undefined));
      let leaderAt = 0;
      const next = await until(
        "a new leader",
        async () => {
          const found = await findLeader(survivors);
          if (found) leaderAt = Date.now();
          return found;
        },
        60_000,
      );
      const pollAt = await until(
        "the new leader's first poll",
        () => firstPollAfter(next.proc, killedAt),
        60_000,
      );
      kills.push({ toLeaderMs: leaderAt - killedAt, toFirstPollMs: pollAt - killedAt });
      progress(
        `failover: kill ${k + 1}: leader in ${leaderAt - killedAt} ms, poll in ${pollAt - killedAt} ms`,
      );
      // back as a follower: the lease is the survivor's now
      launch(leader);
      await until("the restarted replica", () => leaderOf(leader), 60_000);
    }
    await changing;
    await Promise.all(pending);

    progress(`failover: ${made.length} changes made; draining`);
    const drainEnd = Date.now() + options.drainTimeoutMs;
    // scored against what the replicas committed: their notify_events in the shared database
    const scoreNow = async () =>
      scoreCommitted({
        changes: made,
        committed: await committedInPostgres(databaseUrl!),
        delivered: slack.delivered,
        channels,
        polls: polls(),
        initial: { state: "Running", health: "Healthy" },
        now: Date.now(),
      });
    // a change lasting to the end waits for a committed read after it, as in the chaos run
    const awaitingPoll = (current: CommittedScore) =>
      current.unobservableChanges.some(
        (change) => change.until === null && change.why !== "unchanged",
      );
    let score = await scoreNow();
    while ((score.lost > 0 || score.missed > 0 || awaitingPoll(score)) && Date.now() < drainEnd) {
      await sleep(500);
      score = await scoreNow();
    }
    // a little longer: a duplicate can still be on its way
    await sleep(2_000);
    score = await scoreNow();
    const { databaseUrl: _url, ...shown } = options;
    const leaderTimes = kills.map((kill) => kill.toLeaderMs);
    const pollTimes = kills.map((kill) => kill.toFirstPollMs);
    return {
      options: shown,
      kills,
      failoverMs: {
        toLeader: { p50: percentile(leaderTimes, 50), max: Math.max(0, ...leaderTimes) },
        toFirstPoll: { p50: percentile(pollTimes, 50), max: Math.max(0, ...pollTimes) },
      },
      score,
      duplicatesPerKill: kills.length > 0 ? score.duplicated / kills.length : 0,
      commands: {
        sent: commandsSent,
        answered: commandTimes.length,
        answerMs: { p50: percentile(commandTimes, 50), max: Math.max(0, ...commandTimes) },
      },
      commandFailures,
      unexpectedExits,
      durationMs: Date.now() - started,
    };
  } finally {
    stopping = true;
    for (const replica of replicas) for (const proc of replica.history) await proc.kill();
    await fake.close();
    await sim.close();
    await ownPostgres?.stop();
  }
}

/** `npm run bench -- failover`; FAILOVER_OPTIONS='{"kills":3}' overrides options */
export function runFailoverBench(): Promise<FailoverReport> {
  const overrides = JSON.parse(process.env.FAILOVER_OPTIONS ?? "{}") as Partial<FailoverOptions>;
  return runFailover({ ...FAILOVER_BENCH, ...overrides }, (line) =>
    process.stderr.write(`${line}\n`),
  );
}
