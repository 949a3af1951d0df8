import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRng } from "../../src/simulator/prng.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import { startFakeSlack } from "../../test/support/fake-slack.ts";
import { postSigned, slashCommandBody } from "../../test/support/slack-request.ts";
import {
  type CliProcess,
  freePort,
  spawnCli,
  until,
} from "../../test/support/start-process-harness.ts";
import { awayAndBack, spread } from "./changes.ts";
import { committedInSqlite } from "./committed.ts";
import { startPaletteFaults } from "./palette-faults.ts";
import type { MadeChange } from "./score.ts";
import { type CommittedScore, scoreCommitted } from "./score-committed.ts";
import { installSlackWindows, type SlackWindow, type SlackWindowKind } from "./slack-windows.ts";

/**
 * The chaos run: the bot as its own process (HTTP mode, `bin/palette-chatops.js start`) against
 * the Palette simulator behind a fault-injecting proxy and a fake Slack with bad windows, while
 * the driver changes clusters, kills the bot, expires its Palette token and sends commands.
 * Every figure in the report comes from what Slack accepted, compared with what was changed.
 */

export interface ChaosOptions {
  clusters: number;
  projects: number;
  channels: number;
  /** state/health changes; each changed cluster changes twice (away and back) */
  changes: number;
  /** the changes are spread over this long */
  changePeriodMs: number;
  kills: number;
  /** SIGSTOPs of the bot (a long GC pause, a frozen VM), each woken by SIGCONT `pauseMs` later */
  pauses: number;
  pauseMs: number;
  tokenExpiries: number;
  /** share of Palette requests that fail (429, 503, reset, 2 s latency in equal parts) */
  faultRate: number;
  /** share of cluster listings that come back one cluster short */
  gapRate: number;
  /** each Slack fault window lasts this long */
  slackWindowMs: number;
  /** after the last change, how long delivery may take before what is missing counts as lost */
  drainTimeoutMs: number;
  /** a `/palette cluster <name>` every so often while the changes run */
  commandEveryMs: number;
  seed: number;
}

/** `npm run chaos`: the figures (about four minutes). */
export const FULL_RUN: ChaosOptions = {
  clusters: 300,
  projects: 5,
  channels: 10,
  changes: 500,
  changePeriodMs: 180_000,
  kills: 10,
  // posts in flight when it stops are answered while it sleeps: woken, it must not send them again
  pauses: 5,
  pauseMs: 8_000,
  tokenExpiries: 10,
  faultRate: 0.2,
  gapRate: 0.05,
  slackWindowMs: 12_000,
  drainTimeoutMs: 60_000,
  commandEveryMs: 2_000,
  seed: 11,
};

/** The variant `npm test` runs: the same faults, fewer of everything, under a minute. */
export const SHORT_RUN: ChaosOptions = {
  clusters: 80,
  projects: 5,
  channels: 10,
  changes: 100,
  // each cluster's second change comes half a period after its first: long enough that a
  // restart (a second or two) never hides both from the poll
  changePeriodMs: 30_000,
  kills: 2,
  pauses: 0,
  pauseMs: 0,
  tokenExpiries: 3,
  faultRate: 0.2,
  gapRate: 0.05,
  slackWindowMs: 3_000,
  drainTimeoutMs: 20_000,
  commandEveryMs: 1_500,
  seed: 5,
};

export interface CommandFigures {
  sent: number;
  answered: number;
  /** answered with an error, or not answered, while the bot stayed up */
  failed: number;
  /** cut short by a kill (the request or its answer was in flight) */
  interrupted: number;
  /** not sent: the bot was down at that moment */
  botDown: number;
  answerMs: { p50: number; p99: number };
  failures: string[];
}

export interface ChaosReport {
  options: ChaosOptions;
  /** against what the bots committed (notify_events), issue 37 item 8 */
  score: CommittedScore;
  kills: number;
  pauses: number;
  /** exits the driver did not cause (a crash, or a start that failed in a Slack window) */
  unexpectedExits: number;
  /** why each of those exits happened: the bot's last log line */
  exitNotes: string[];
  /** each bot process's life, ms of the wall clock: spawned → exited (null: still up at the end) */
  uptime: ReadonlyArray<readonly [number, number | null]>;
  tokenExpiries: number;
  palette: ReturnType<Awaited<ReturnType<typeof startPaletteFaults>>["counts"]>;
  slackRefused: Record<SlackWindowKind, number>;
  commands: CommandFigures;
  durationMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}

export async function runChaos(
  options: ChaosOptions,
  progress: (line: string) => void = () => {},
): Promise<ChaosReport> {
  const started = Date.now();
  const rng = createRng(options.seed);
  const dir = mkdtempSync(join(tmpdir(), "chaos-"));
  const signingSecret = randomBytes(16).toString("hex");
  const sim = await startSimulator({
    clusters: options.clusters,
    projects: options.projects,
    seed: options.seed,
    credentials: { password: `pw-${randomBytes(8).toString("hex")}` },
  });
  const palette = await startPaletteFaults({
    target: sim.url,
    faultRate: options.faultRate,
    gapRate: options.gapRate,
    seed: options.seed,
  });
  palette.setEnabled(false);
  // Slack's rate limits come from the run's own windows (slack-windows.ts: 429 with Retry-After
  // on chat.postMessage and chat.update); the fake's tier buckets on top would refuse calls a
  // window had already let through and score its own refusals as the bot's losses
  const fake = await startFakeSlack({
    lax: ["rate"],
    reason: "the chaos run scripts Slack's rate-limit windows itself (slack-windows.ts)",
  });
  const windows: SlackWindow[] = [];
  const slack = installSlackWindows(fake, windows);
  const port = await freePort();
  const projects = sim.control.projects();

  // a calm fleet: every change from here on is the driver's
  const initial = { state: "Running", health: "Healthy" } as const;
  const live = sim.control.clusters();
  for (const cluster of live) {
    sim.control.setState(cluster.uid, initial.state);
    sim.control.setHealth(cluster.uid, initial.health);
  }

  const env = {
    SLACK_BOT_TOKEN: `xoxb-chaos-${randomBytes(8).toString("hex")}`,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.apiUrl,
    PALETTE_API_URL: palette.url,
    PALETTE_EMAIL: sim.credentials.email,
    PALETTE_ORG: sim.credentials.org,
    PALETTE_PASSWORD: sim.credentials.password,
    PALETTE_PROJECTS: projects.join(","),
    PORT: String(port),
    STATE_DB: join(dir, "chaos.sqlite"),
    POLL_SCHEDULE: "* * * * * *",
    // info: the "poll cycle committed" lines say which changes a poll could see (the score needs them)
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? "info",
  };

  // the supervisor: like a container runtime, it starts the bot again whenever it exits
  let bot: CliProcess | undefined;
  let stopping = false;
  let killing = false;
  let unexpectedExits = 0;
  const exitNotes: string[] = [];
  let kills = 0;
  const bots: CliProcess[] = [];
  // what each bot's committed polls read, and when: the changes any poll could have seen
  const polls = (): Array<[number, number]> =>
    bots.flatMap((proc) =>
      proc
        .logs()
        .filter((line) => line.msg === "poll cycle committed")
        .map((line) => [Date.parse(String(line.readFrom)), Date.parse(String(line.readTo))])
        .filter((window): window is [number, number] => window.every(Number.isFinite)),
    );
  /** each bot process's life: spawned → exited (the score's unobservable changes fall outside) */
  const uptime: Array<[number, number | null]> = [];
  const launch = () => {
    const proc = spawnCli(["start"], env);
    bots.push(proc);
    const life: [number, number | null] = [Date.now(), null];
    uptime.push(life);
    void proc.exited.then(() => {
      life[1] = Date.now();
    });
    bot = proc;
    void proc.exited.then(async (exit) => {
      if (stopping || bot !== proc) return;
      if (!killing) {
        unexpectedExits += 1;
        const last = proc.logs().at(-1);
        exitNotes.push(
          `exit ${exit.code ?? exit.signal}: ${String(last?.msg ?? proc.stderr().slice(-200))}`,
        );
      }
      await sleep(300);
      if (!stopping && bot === proc) launch();
    });
  };
  const killBot = async () => {
    const proc = bot;
    if (!proc) return;
    killing = true;
    kills += 1;
    await proc.kill();
    killing = false;
    if (!stopping && bot === proc) launch();
  };

  let pauses = 0;
  const woken: Promise<void>[] = [];
  const pauseBot = () => {
    const proc = bot;
    if (!proc || proc.child.exitCode !== null) return;
    proc.child.kill("SIGSTOP");
    pauses += 1;
    // woken without holding up the plan; a kill meanwhile ends it stopped (SIGKILL still works)
    woken.push(sleep(options.pauseMs).then(() => void proc.child.kill("SIGCONT")));
  };

  const botUrl = `http://127.0.0.1:${port}`;
  const readyz = async () => (await fetch(`${botUrl}/readyz`)).status === 200;
  const commands: CommandFigures = {
    sent: 0,
    answered: 0,
    failed: 0,
    interrupted: 0,
    botDown: 0,
    answerMs: { p50: 0, p99: 0 },
    failures: [],
  };
  const answerTimes: number[] = [];
  const made: MadeChange[] = [];
  let responseSeq = 0;
  const responseFor = (id: string) =>
    fake.callsTo("response").find((call) => call.body._responseId === id);
  const slash = (text: string, channelId: string, id: string) =>
    postSigned(
      `${botUrl}/slack/events`,
      signingSecret,
      slashCommandBody({ text, channelId, responseUrl: `${fake.url}/response/${id}` }),
    );

  try {
    launch();
    await until("the bot ready", readyz, 30_000);
    const channels = new Map<string, string>();
    for (let i = 0; i < options.channels; i++) {
      const channel = `C0CHAOS${i}`;
      const project = projects[i % projects.length]!;
      channels.set(channel, project);
      const id = `sub-${i}`;
      await slash(`subscribe clusters project:${project}`, channel, id);
      const answer = await until(`the subscribe answer in ${channel}`, () => responseFor(id));
      if (!JSON.stringify(answer.body).includes("Subscribed")) {
        throw new Error(`subscribe in ${channel} failed: ${JSON.stringify(answer.body)}`);
      }
    }
    progress(`chaos: ${options.channels} channels subscribed; changes start`);

    // the plan: who changes when, kills, token expiries, Slack windows, commands
    const t0 = Date.now() + 500;
    const end = t0 + options.changePeriodMs;
    const { plan, chosen } = awayAndBack({
      sim,
      live,
      changes: options.changes,
      t0,
      periodMs: options.changePeriodMs,
      rng,
      reason: "chaos",
      made,
    });
    for (const at of spread(rng, options.kills, t0 + 2_000, end)) {
      plan.push({ at, run: killBot });
    }
    for (const at of spread(rng, options.pauses, t0 + 3_000, end - options.pauseMs)) {
      plan.push({ at, run: pauseBot });
    }
    for (const at of spread(rng, options.tokenExpiries, t0, end)) {
      plan.push({ at, run: () => void sim.control.expireTokens() });
    }
    const windowKinds: SlackWindowKind[] = ["ratelimited", "unavailable", "invalid_auth", "hang"];
    spread(rng, windowKinds.length, t0, end - options.slackWindowMs).forEach((from, i) => {
      windows.push({
        kind: windowKinds[i]!,
        from,
        to: from + options.slackWindowMs,
        channel: windowKinds[i] === "hang" ? "C0CHAOS0" : undefined,
      });
    });
    const pending: Promise<void>[] = [];
    for (let at = t0 + 1_000; at < end; at += options.commandEveryMs) {
      plan.push({
        at,
        run: () => {
          const target = rng.pick(chosen);
          const id = `cmd-${++responseSeq}`;
          const killsBefore = kills;
          const sentAt = Date.now();
          pending.push(
            (async () => {
              let status: number;
              try {
                status = (await slash(`cluster ${target.name}`, "C0CHAOSCMD", id)).status;
              } catch {
                commands.botDown += 1;
                return;
              }
              commands.sent += 1;
              const answer = await until("answer", () => responseFor(id), 20_000).catch(
                () => undefined,
              );
              const body = answer ? JSON.stringify(answer.body) : "";
              // the card, or (a name several projects use) the choice between them
              const right = body.includes(target.uid) || body.includes(`are named ${target.name}`);
              if (answer && status === 200 && right) {
                commands.answered += 1;
                answerTimes.push(answer.at - sentAt);
              } else if (kills !== killsBefore) {
                commands.interrupted += 1;
              } else {
                commands.failed += 1;
                commands.failures.push(answer ? body.slice(0, 600) : `no answer (HTTP ${status})`);
              }
            })(),
          );
        },
      });
    }
    plan.sort((a, b) => a.at - b.at);
    palette.setEnabled(true);
    for (const step of plan) {
      await sleep(step.at - Date.now());
      await step.run();
    }
    await Promise.all(pending);
    await Promise.all(woken);
    // faults off: what is still missing now has the drain timeout to arrive
    palette.setEnabled(false);
    progress(`chaos: ${made.length} changes made; draining`);
    const drainEnd = Date.now() + options.drainTimeoutMs;
    // scored against what the bots committed: their notify_events, read beside the running bot
    const scoreNow = () =>
      scoreCommitted({
        changes: made,
        committed: committedInSqlite(env.STATE_DB),
        delivered: slack.delivered,
        channels,
        polls: polls(),
        initial,
        now: Date.now(),
      });
    let score = scoreNow();
    // A change whose state lasts to the end is owed once a poll that began after it commits; until
    // one has, no committed read explains its absence: the drain waits for that poll too (under
    // load, the changes of the last slow cycle). A committed move not yet in Slack is still on its way.
    const awaitingPoll = (current: CommittedScore) =>
      current.unobservableChanges.some(
        (change) => change.until === null && change.why !== "unchanged",
      );
    while ((score.lost > 0 || score.missed > 0 || awaitingPoll(score)) && Date.now() < drainEnd) {
      await sleep(500);
      score = scoreNow();
    }
    // a little longer: a duplicate or a false message can still be on its way
    await sleep(2_000);
    score = scoreNow();
    commands.answerMs = { p50: percentile(answerTimes, 50), p99: percentile(answerTimes, 99) };
    return {
      options,
      score,
      kills,
      pauses,
      unexpectedExits,
      exitNotes,
      uptime: uptime.map(([from, to]) => [from, to] as const),
      tokenExpiries: options.tokenExpiries,
      palette: palette.counts(),
      slackRefused: slack.refused,
      commands,
      durationMs: Date.now() - started,
    };
  } finally {
    stopping = true;
    for (const proc of bots) await proc.kill();
    // CHAOS_LOG_DIR=…: each bot process's output, for reading what it did
    const logDir = process.env.CHAOS_LOG_DIR;
    if (logDir) {
      mkdirSync(logDir, { recursive: true });
      for (const [i, proc] of bots.entries()) {
        writeFileSync(join(logDir, `bot-${i}.log`), proc.output());
      }
      writeFileSync(join(logDir, "slack-delivered.json"), JSON.stringify(slack.delivered, null, 1));
      writeFileSync(join(logDir, "changes.json"), JSON.stringify(made, null, 1));
      cpSync(env.STATE_DB, join(logDir, "state.sqlite"));
    }
    await fake.close();
    await palette.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The unobservable changes of a run in words, times in seconds from the first change: each with
 * its state's life and why no committed move carries it, the bots' uptime windows, and the
 * measured time no committed poll was reading.
 */
export function describeUnobservable(report: ChaosReport): string[] {
  const changes = report.score.unobservableChanges.filter((c) => c.why !== "unchanged");
  if (changes.length === 0) return [];
  const t0 = Math.min(...changes.map((c) => c.from), ...report.uptime.map(([from]) => from));
  const s = (ms: number | null) => (ms === null ? "end" : ((ms - t0) / 1000).toFixed(1));
  const windows = (list: ReadonlyArray<readonly [number, number | null]>) =>
    list.map(([from, to]) => `${s(from)}–${s(to)}`).join(", ") || "none";
  return [
    `bots up: ${windows(report.uptime)}`,
    `uncommitted: ${report.score.uncommittedMs.total} ms in all, longest ${report.score.uncommittedMs.longest} ms`,
    ...changes.map((c) => `unobservable (${c.why}): ${c.change}, lived ${s(c.from)}–${s(c.until)}`),
  ];
}
