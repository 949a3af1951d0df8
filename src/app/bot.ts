import { createAccessPolicy } from "../access/policy.ts";
import { type Clock, systemClock } from "../clock.ts";
import { AuditExportRoom } from "../commands/audit-room.ts";
import { sweepStaleSpools } from "../commands/audit-spool.ts";
import type { Config } from "../config.ts";
import { createEdgeWatch } from "../edge/watch.ts";
import { assistantMetrics } from "../http/assistant-metrics.ts";
import { createHealth } from "../http/health.ts";
import { Metrics } from "../http/metrics.ts";
import { startHttpServer } from "../http/server.ts";
import { intervalScheduler } from "../launch/watch.ts";
import type { Logger } from "../log.ts";
import { createSender } from "../notify/delivery/outbox-sender.ts";
import { POST_ATTEMPT_KEEP_MS } from "../notify/delivery/post-once.ts";
import { createDigestJob, type DigestScheduler } from "../notify/digest/channel-digest-job.ts";
import { DIGEST_THRESHOLD } from "../notify/digest/digest.ts";
import { createPoller } from "../notify/poll/poll.ts";
import { createPaletteClient } from "../palette/client.ts";
import { NO_PROXY_CONFIG, routeProcessThroughProxy } from "../proxy.ts";
import { createEdgeRiskNotifier } from "../radar/edge-notices.ts";
import { createRiskNotifier } from "../radar/notices.ts";
import { createRadar } from "../radar/sweep.ts";
import { VERBS } from "../registry/dispatch.ts";
import { createSlackApp, createSlackWebClient } from "../slack/app.ts";
import { createChannelProbe, createSlackPoster } from "../slack/notify-poster.ts";
import { slackEmailOf, slackHomeOf, slackPersonOf } from "../slack/user-email.ts";
import { AssistantTurnStore } from "../store/assistant-turns.ts";
import { AuditLog } from "../store/audit.ts";
import { ChangeStore } from "../store/changes.ts";
import { type LeaderLease, leaseFor, SINGLETONS_LEASE, sqliteFileLease } from "../store/lease.ts";
import { openStore } from "../store/open.ts";
import { PostAttemptStore } from "../store/post-attempts.ts";
import type { SqlDb } from "../store/sql.ts";
import type { CommandDeps } from "../verb-kit/types.ts";
import { buildAssistant } from "./assistant.ts";
import { homeSources } from "./home-sources.ts";
import { buildIdentity, identityOfHome } from "./identity.ts";
import {
  countingDispatch,
  countingPoster,
  paletteMetricsHook,
  registerAckTiming,
} from "./instrument.ts";
import { type DeposedReason, systemTimers, type Timers } from "./leader.ts";
import { createLeadership } from "./leadership.ts";
import {
  claimSqliteFile,
  SqliteFileLost,
  soleReplicaHolder,
  startupTimers,
} from "./sole-replica.ts";
import { refuseNetworkSqlite } from "./sqlite-volume.ts";

/** how often the leader reads the state of the day-2 changes Palette accepted */
const CHANGE_FOLLOW_EVERY_MS = 10_000;

import { AUDIT_PRUNE_EVERY_MS, createAuditRetention } from "./audit-retention.ts";
import { paletteReadiness } from "./palette-readiness.ts";
import { senderReadiness } from "./sender-readiness.ts";

export interface RunningBot {
  port: number | undefined;
  /** where /healthz, /readyz and /metrics are served when METRICS_PORT is set */
  metricsPort?: number;
  /** graceful: stop taking requests, finish what is in flight, stop the jobs, close the store */
  stop(): Promise<void>;
  /**
   * Settles when this process must not run on: on a SQLite file, its lease was taken over or ran
   * out (SqliteFileLost); the caller stops the bot and exits non-zero. Never settles otherwise.
   */
  fatal: Promise<Error>;
}

/** What tests put in place of the wall-clock parts (the clock is startBot's own argument). */
export interface BotOptions {
  /** the channel digests' timers; default node-cron */
  digestScheduler?: DigestScheduler;
  /**
   * the leader lease's clock and timers; default the wall clock and real timers, whatever the
   * bot's clock: the lease's expiry is compared between replicas (processes), so it is wall time
   */
  leaseClock?: Clock;
  leaseTimers?: Timers;
  /** this replica's holder id; default host name, pid and a random suffix */
  replicaId?: string;
  /** how often the leader re-reads the digest schedules; default DIGEST_RESYNC_MS */
  digestResyncMs?: number;
  /** how often the leader prunes the audit (AUDIT_RETENTION_DAYS); default AUDIT_PRUNE_EVERY_MS */
  auditPruneEveryMs?: number;
}

/**
 * A digest schedule set through a follower (any replica serves commands) is re-armed by the
 * follower's own job only, which does not run: the leader re-reads the schedules this often.
 */
const DIGEST_RESYNC_MS = 60_000;

/** How often launched clusters are checked until they settle (they change in minutes). */
const LAUNCH_WATCH_MS = 15_000;

/**
 * `palette-chatops start`: assembles the bot from the config. Every part gets its dependencies
 * here and nowhere else, so the parts themselves stay testable on their own.
 */
export async function startBot(
  config: Config,
  logger: Logger,
  clock: Clock,
  options: BotOptions = {},
): Promise<RunningBot> {
  const slack = config.slack;
  if (!slack) throw new Error("SLACK_BOT_TOKEN: required for start");

  const metrics = new Metrics({ knownVerbs: VERBS.map((verb) => verb.name) });
  // before SQLite opens (and migrates) the file: not on a network file system
  if (config.stateDb.kind === "sqlite" && config.stateDb.path !== ":memory:") {
    await refuseNetworkSqlite(config.stateDb.path);
  }
  // A SQLite file keeps the singletons' lease in itself, so a second process on the file is found
  // out; it is claimed before the file is migrated (a newer release started beside a live older
  // one must not change the schema under it) and before anything talks to Slack or Palette.
  const sqliteFile =
    config.stateDb.kind === "sqlite" && config.stateDb.path !== ":memory:"
      ? config.stateDb.path
      : undefined;
  const leaseClock = options.leaseClock ?? systemClock;
  let mustExit: (error: Error) => void = () => {};
  const fatal = new Promise<Error>((resolve) => {
    mustExit = resolve;
  });
  // on a SQLite file the holder says which kernel boot, PID namespace and process it is
  const holder = options.replicaId ?? (sqliteFile ? soleReplicaHolder() : undefined);
  let fileLease: LeaderLease | undefined;
  const claimFile = async (unmigrated: SqlDb, path: string, self: string) => {
    fileLease = await sqliteFileLease(unmigrated, SINGLETONS_LEASE);
    await claimSqliteFile({
      lease: fileLease,
      holder: self,
      path,
      ttlMs: config.leader.ttlMs,
      clock: leaseClock,
      timers: options.leaseTimers ?? startupTimers,
    });
  };
  const db = await openStore(config.stateDb, {
    onError: (error) => logger.warn({ err: error.message }, "a pooled database connection failed"),
    ...(sqliteFile && holder
      ? { beforeMigrating: (unmigrated: SqlDb) => claimFile(unmigrated, sqliteFile, holder) }
      : {}),
  });
  // Only the lease holder runs the singletons (issue 12); on SQLite, one replica, it always
  // holds it. Created first: the singletons' writes are fenced by it; they start once elected.
  const lease = fileLease ?? leaseFor(db, SINGLETONS_LEASE);
  const leadership = createLeadership({
    lease,
    ttlMs: config.leader.ttlMs,
    renewEveryMs: config.leader.renewEveryMs,
    clock: leaseClock,
    timers: options.leaseTimers ?? systemTimers,
    logger: logger.child({ component: "leader" }),
    holder,
    // the singletons below exist by the time the elector starts (after the app is up)
    singletons: { start: () => startSingletons(), stop: () => stopSingletons() },
    // woken past its lease (paused), another process may run on the file: this one must not
    ...(sqliteFile
      ? {
          onDeposed: (reason: DeposedReason) => {
            if (reason === "lost" || reason === "expired") {
              mustExit(new SqliteFileLost(sqliteFile, reason));
            }
          },
        }
      : {}),
  });
  const fence = leadership.fence;
  const countPaletteEvent = paletteMetricsHook(metrics);
  // the probes read the poller (created below) only when /readyz is asked, after start-up
  const paletteHealth = paletteReadiness(
    { metrics: () => poller.metrics() },
    // a follower serves commands without polling: it is ready without a poll of its own
    () => leadership.readiness(),
  );
  const palette = createPaletteClient({
    baseUrl: config.palette.apiUrl,
    credentials: config.palette.credentials,
    logger: logger.child({ component: "palette" }),
    clock,
    tokenRefreshSchedule: config.tokenRefreshSchedule,
    dispatcherOptions: { proxy: config.proxy },
    onEvent: (event) => {
      countPaletteEvent(event);
      paletteHealth.observe(event);
    },
  });
  const countSlackCall = (method: string, outcome: string) => metrics.slackCall(method, outcome);
  const slackClient = createSlackWebClient(slack, logger, countSlackCall);
  const policy = createAccessPolicy({
    allowLaunch: config.allowLaunch,
    allowKubeconfig: config.allowKubeconfig,
    allowSubscribe: config.allowSubscribe,
    allowAck: config.allowAck,
    allowChanges: config.allowChanges,
    allowAudit: config.allowAudit,
    allowFreeze: config.allowFreeze,
    allowWhy: config.allowWhy,
    client: slackClient,
    clock,
    logger,
  });
  const audit = new AuditLog(db, clock);
  // an audit export a crash cut short left its spool in /tmp, which a restarted container keeps;
  // each replica sweeps its own (the files' times are the OS's, so the OS's clock judges them)
  void sweepStaleSpools(Date.now()).then(
    (swept) => swept > 0 && logger.info({ swept }, "stale audit export spools deleted"),
    (error: unknown) => logger.warn({ err: String(error) }, "could not sweep audit export spools"),
  );
  // the audit is kept AUDIT_RETENTION_DAYS; the lease holder deletes what is older
  const auditRetention = createAuditRetention({
    audit,
    clock,
    retentionDays: config.auditRetentionDays,
    logger: logger.child({ component: "audit" }),
    changes: { store: new ChangeStore(db, clock), retentionDays: config.changesRetentionDays },
    postAttempts: {
      prune: () => new PostAttemptStore(db, db.dialect).pruneOlderThan(POST_ATTEMPT_KEEP_MS),
    },
    ...(config.assistant
      ? {
          assistantTurns: new AssistantTurnStore(
            db,
            clock,
            config.assistant.historyDays * 86_400_000,
          ),
        }
      : {}),
  });
  const commandDeps: CommandDeps = {
    palette,
    db,
    audit,
    policy,
    approvals: config.approvals,
    auditExportMax: config.auditExportMax,
    // the temp volume's own limit (the chart's /tmp sizeLimit), which statfs does not see
    auditExportRoom: new AuditExportRoom(
      config.auditTmpBytes !== undefined ? { limitBytes: config.auditTmpBytes } : {},
    ),
    clock,
    logger,
    projects: config.palette.projects,
    consoleUrl: config.palette.consoleUrl,
    channelProbe: createChannelProbe({ token: slack.botToken, apiUrl: slack.apiUrl }),
    // the digest job is created below; a command only reaches this after start-up
    onDigestChange: () => digests.sync(),
    identity: buildIdentity(config.identity, {
      db,
      clock,
      logger,
      paletteApiUrl: config.palette.apiUrl,
      service: palette,
      emailOf: slackEmailOf(slackClient),
      // one users.info: the e-mail, and whether the person is of another workspace
      slackPersonOf: slackPersonOf(slackClient, slackHomeOf(slackClient, slack.homeTeamId)),
      countMintedKeyTrouble: (kind, outcome) => metrics.mintedKeyTrouble(kind, outcome),
    }),
  };

  // one Slack client for the notifications and the radar's notices: a WebClient is a large
  // object tree (every API method bound, its HTTP agent and queue), held for the process's life
  const notifyPoster = countingPoster(
    metrics,
    createSlackPoster({ token: slack.botToken, apiUrl: slack.apiUrl }),
  );
  const sender = createSender({
    db,
    slack: notifyPoster,
    clock,
    logger: logger.child({ component: "notify" }),
    consoleUrl: config.palette.consoleUrl,
    // one poll's cards for a channel (beyond DIGEST_THRESHOLD they fold into one digest) go out
    // together, not one a second: Slack allows short bursts, and paces the rest at one a second
    burst: DIGEST_THRESHOLD,
    onPauseChange: (state) =>
      state.paused ? metrics.senderPaused(state.reason) : metrics.senderResumed(),
    fence,
  });
  const poller = createPoller({
    palette,
    db,
    clock,
    logger: logger.child({ component: "poller" }),
    projects: config.palette.projects,
    schedule: config.pollSchedule,
    reconcileSchedule: config.reconcileSchedule,
    // a health loss's notification carries its likely cause (issue 27), within the poll's budget
    likelyCauses: true,
    causeEmails: config.whyShowEmail,
    onCommitted: () => sender.wake(),
    // a snooze or mute that ran out with nothing kept: its card drops the "Snoozed by…" line
    onHoldsEnded: (changes) => {
      for (const change of changes) void slackApp.edge.commandDeps.onHoldChange?.(change);
    },
    onCycle: (result) => {
      // the fleet's pending repaves: one paged list, read after every reconciliation
      // (a leader deposed mid-read has its write fenced: logged, not an unhandled rejection,
      // which would end the process)
      if (result.kind === "reconcile" && result.ok) {
        metrics.reconciled(result.durationMs / 1000);
        const started = performance.now();
        radar
          .readRepaves()
          .then(() => {
            const seconds = (performance.now() - started) / 1000;
            const stats = radar.stats();
            metrics.radar({
              repavesSeconds: seconds,
              ...(stats.lastRepavesStoreMs !== undefined
                ? { repavesStoreSeconds: stats.lastRepavesStoreMs / 1000 }
                : {}),
              requestsPerMinute: stats.requestsPerMinute,
            });
          })
          .catch((error: unknown) => {
            logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              "pending repaves not read",
            );
          })
          // then the edge fleet's risks (issue 39, item 5), at the same pace as the sweep
          .then(() => radar.readEdge())
          .catch((error: unknown) => {
            logger.warn(
              { err: error instanceof Error ? error.message : String(error) },
              "edge risks not read",
            );
          });
      }
      const outcome = result.ok ? "ok" : "error";
      metrics.pollCompleted(result.durationMs / 1000, result.clusters, outcome);
      metrics.pollCycle(result.kind, outcome, result.paletteCalls);
    },
    onReconciling: (active) => metrics.pollReconciling(active),
    fence,
    // the edge fleet (issue 39): read, judged and told in the same turn, through the same outbox
    edge: createEdgeWatch({
      palette,
      db,
      clock,
      logger: logger.child({ component: "edge" }),
      scopes: config.palette.projects.length > 0 ? config.palette.projects : [""],
      siteTag: config.edge.siteTag,
      graceMs: config.edge.unhealthyGraceMs,
      fence,
    }),
  });
  // the radar (issue 28): each cluster's certificates, profile updates and backups, read in
  // turn (one pass a day, at most RADAR_CALLS_PER_MINUTE requests) behind the poll and commands; notices to `risks` channels
  const radar = createRadar({
    palette,
    db,
    clock,
    logger: logger.child({ component: "radar" }),
    projects: config.palette.projects,
    // RADAR_CALLS_PER_MINUTE caps a pace that reads the fleet once a day
    callsPerMinute: config.radar.callsPerMinute,
    followFleet: true,
    settings: config.radar,
    notifier: createRiskNotifier({
      db,
      slack: notifyPoster,
      clock,
      logger: logger.child({ component: "radar" }),
      // its claims, posts and edits are the lease holder's only (issue 37 item 3)
      fence,
    }),
    edge: {
      palette,
      settings: config.edgeRisks,
      notifier: createEdgeRiskNotifier({
        db,
        slack: notifyPoster,
        clock,
        logger: logger.child({ component: "radar" }),
        fence,
      }),
    },
    fence,
  });
  const digests = createDigestJob({
    db,
    clock,
    logger: logger.child({ component: "digest" }),
    scheduler: options.digestScheduler,
    onCommitted: () => sender.wake(),
    fence,
  });
  metrics.setOutboxSource(() => sender.outboxStats());
  metrics.setLeaderSource(() => leadership.stats());

  let slackReady = false;
  const health = createHealth({
    metrics,
    // a paused sender (Slack refuses the token) shows here, but commands may still be answered
    advisory: ["palette_poll", "notify_sender"],
    logger,
    probes: {
      store: async () => {
        await db.get("SELECT 1 AS one");
        return true;
      },
      palette: () => paletteHealth.credentials(),
      palette_poll: () => paletteHealth.poll(),
      slack: () =>
        slackReady ? { ok: true } : { ok: false, reason: "Slack auth.test not passed yet" },
      notify_sender: senderReadiness(sender, clock),
    },
    leader: () => leadership.report(),
  });

  // the grounded assistant (issue 33): absent unless ASSISTANT_PROVIDER is set
  const assistant = await buildAssistant({
    config: config.assistant,
    deps: commandDeps,
    observer: config.assistant ? assistantMetrics(metrics.registry) : undefined,
  });
  const slackApp = createSlackApp({
    slack,
    proxy: config.proxy,
    commandDeps,
    assistant,
    logger,
    // with METRICS_PORT the probes and the scrape stay off the port Slack's ingress reaches
    customRoutes: config.metricsPort === undefined ? health.routes : [],
    onSlackCall: countSlackCall,
    onConversation: (event, outcome) => metrics.conversation(event, outcome),
    dispatch: countingDispatch(metrics),
    instrument: registerAckTiming(metrics),
    wakeSender: () => sender.wake(),
    launchFence: fence,
    // day-2 changes are followed by the lease holder, like launches: one replica edits the cards
    changeSchedule: (task) =>
      intervalScheduler(CHANGE_FOLLOW_EVERY_MS)(async () => {
        if (leadership.readiness().leading) await task();
      }),
    home: {
      // with the Slack client, a user sees only the subscriptions of channels they are in
      ...homeSources({
        poller,
        palette,
        db,
        projects: config.palette.projects,
        clock,
        slack: slackClient,
      }),
      policy,
      consoleUrl: config.palette.consoleUrl,
      clock,
      // the home's Link/Unlink is for keys people paste; with LINK_METHOD=email there is none
      ...(commandDeps.identity?.method === "key"
        ? { identityOf: identityOfHome(commandDeps.identity) }
        : {}),
      logger,
    },
  });
  const { launch } = slackApp.edge;

  let digestResync: { stop(): void } | undefined;
  let auditPrune: { stop(): void } | undefined;
  async function startSingletons(): Promise<void> {
    // once at election (a replica that was down for days catches up), then now and then
    void auditRetention.run();
    auditPrune = intervalScheduler(options.auditPruneEveryMs ?? AUDIT_PRUNE_EVERY_MS)(async () => {
      await auditRetention.run();
    });
    poller.start();
    sender.start();
    radar.start();
    // arms each channel's digest timer, and posts a digest missed while the bot was down
    await digests.start();
    launch.tracker.start(intervalScheduler(LAUNCH_WATCH_MS));
    digestResync = intervalScheduler(options.digestResyncMs ?? DIGEST_RESYNC_MS)(() =>
      digests.sync(),
    );
    // a first poll now rather than at the next tick: readiness and the baseline come sooner
    void poller.runCycle();
  }

  /** deposed or shutting down: all of them at once; rounds still running find their writes fenced */
  async function stopSingletons(): Promise<void> {
    digestResync?.stop();
    digestResync = undefined;
    auditPrune?.stop();
    auditPrune = undefined;
    await Promise.all([
      launch.tracker.stop(),
      poller.stop(),
      digests.stop(),
      sender.stop(),
      radar.stop(),
    ]);
  }

  const opsServer =
    config.metricsPort === undefined
      ? undefined
      : await startHttpServer(config.metricsPort, health.routes);
  // Slack's WebClients, file uploads and the model use Node's fetch: through the proxy from here
  // on, the first of their calls (HTTPS_PROXY; Palette and Socket Mode are given it above); put
  // back at stop, or at once when the start fails
  const restoreDispatcher = routeProcessThroughProxy(config.proxy ?? NO_PROXY_CONFIG);
  let port: number | undefined;
  // elected: the singletons start (at once on SQLite); else this replica serves commands and
  // keeps trying to take the lease. Before Slack's auth.test: while Slack refuses or is down at
  // start (waited out below), the poll goes on reading Palette and queues what changed, and the
  // sender, paused on Slack's refusal, delivers it once Slack takes it; a change that comes and
  // goes meanwhile is not missed. A start-up that fails exits the process, singletons and all.
  try {
    await leadership.start();
    ({ port } = await slackApp.start(config.port));
  } catch (error) {
    restoreDispatcher();
    throw error;
  }
  slackReady = true;
  logger.info(
    {
      port,
      metricsPort: opsServer?.port,
      mode: slack.mode,
      store: config.stateDb.kind,
      projects: config.palette.projects.length,
      replica: leadership.holder,
      leader: leadership.readiness().leading,
    },
    "palette-chatops started",
  );

  return {
    port,
    metricsPort: opsServer?.port,
    fatal,
    async stop() {
      health.setDraining();
      await slackApp.stop();
      // submissions still talking to Palette finish (up to 5 s) before the store closes
      await launch.drain();
      // deposes (the singletons stop) and releases the lease, so a follower takes over at once
      await leadership.stop();
      await palette.close();
      await opsServer?.close();
      await db.close();
      restoreDispatcher();
      logger.info("palette-chatops stopped");
    },
  };
}
