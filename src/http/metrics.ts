import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The bot's Prometheus metrics on a registry of its own (not prom-client's global one), so two
 * bots in one process (tests, the demo) never collide and nothing else leaks into `/metrics`.
 * Other modules call the methods below and never import prom-client themselves.
 *
 * Label values are normalised here, because a label fed with user input (a mistyped verb, a raw
 * URL with a cluster UID in it) would create a new time series per value and exhaust Prometheus.
 */

/** What the outbox reports at scrape time (the notification sender provides it). */
export interface OutboxStats {
  /** messages waiting to be sent */
  depth: number;
  /** age in seconds of the oldest waiting message; 0 when the outbox is empty */
  oldestAgeSeconds: number;
  /** messages given up (retries spent, or refused even as plain text) */
  deadLetters?: number;
  /** messages held while their channel is closed to the bot */
  parked?: number;
}

/** This replica and the leader lease, at scrape time (the leader elector provides it). */
export interface LeaderStats {
  /** this replica holds the lease and runs the singletons */
  leading: boolean;
  /** seconds since this replica last secured its lease (0 when it does not lead) */
  leaseAgeSeconds: number;
  /** seconds until the lease it holds ends unless renewed (0 when it does not lead) */
  expiresInSeconds: number;
}

export type LeaderSource = () => LeaderStats;

export interface MetricsOptions {
  /** metric name prefix; default `palette_chatops_` */
  prefix?: string;
  /** register Node's process metrics (CPU, memory, event loop lag…) too; default true */
  defaultMetrics?: boolean;
  /** the dispatcher's verbs; any other verb is counted as `other`. Unset: any well-formed word. */
  knownVerbs?: readonly string[];
  /** read at every scrape; can also be set later with `setOutboxSource` */
  outbox?: OutboxSource;
}

/** Reads the outbox's numbers (from the store: possibly asynchronous). */
export type OutboxSource = () => OutboxStats | Promise<OutboxStats>;

const OTHER = "other";

/** Lower-case word of at most 40 chars from [a-z0-9_.-], else `other`. */
function label(value: string | number | undefined): string {
  const text = String(value ?? "")
    .trim()
    .toLowerCase();
  return /^[a-z0-9_.:-]{1,40}$/.test(text) ? text : OTHER;
}

/**
 * The Palette client names each call by its rate-limit prefix (`/v1/dashboard`,
 * `/v1/spectroclusters/{uid}/assets`); anything else becomes "other", so no UID or odd text
 * ever becomes a label.
 */
export function paletteLabel(prefix: string): string {
  return /^\/v\d+\/[a-zA-Z]{1,40}(\/\{uid\}\/[a-zA-Z]{1,40})?$/.test(prefix) ? prefix : OTHER;
}

export class Metrics {
  /** the registry `/metrics` serves */
  readonly registry: Registry;

  readonly #commands: Counter<"verb" | "outcome">;
  readonly #ack: Histogram;
  readonly #paletteCalls: Counter<"prefix" | "status">;
  readonly #paletteRetries: Counter<"prefix">;
  readonly #paletteRateLimited: Counter<"prefix">;
  readonly #tokenRefreshes: Counter<"outcome">;
  readonly #logins: Counter<"outcome">;
  readonly #pollDuration: Histogram<"outcome">;
  readonly #pollClusters: Gauge;
  readonly #pollCycles: Counter<"kind" | "outcome">;
  readonly #pollCalls: Gauge<"kind">;
  readonly #pollReconciling: Gauge;
  readonly #reconcileSeconds: Gauge;
  readonly #radarRepavesSeconds: Gauge;
  readonly #radarRepavesStoreSeconds: Gauge;
  readonly #radarRequestsPerMinute: Gauge;
  readonly #slackCalls: Counter<"method" | "outcome">;
  readonly #conversations: Counter<"event" | "outcome">;
  readonly #senderPauses: Counter<"reason">;
  readonly #mintedKeyTrouble: Counter<"kind" | "outcome">;
  readonly #senderPaused: Gauge;
  readonly #knownVerbs: Set<string> | undefined;
  #outbox: OutboxSource | undefined;
  #leader: LeaderSource | undefined;

  constructor(options: MetricsOptions = {}) {
    const prefix = options.prefix ?? "palette_chatops_";
    const registers = [new Registry()];
    this.registry = registers[0]!;
    this.#knownVerbs = options.knownVerbs
      ? new Set(options.knownVerbs.map((verb) => verb.toLowerCase()))
      : undefined;
    this.#outbox = options.outbox;

    this.#commands = new Counter({
      name: `${prefix}commands_total`,
      help: "Slash commands and buttons handled, by verb and by what they answered (message, file, modal; error if the dispatcher threw)",
      labelNames: ["verb", "outcome"],
      registers,
    });
    this.#ack = new Histogram({
      name: `${prefix}ack_seconds`,
      help: "Time from a Slack request's arrival to its acknowledgement (Slack allows 3 s)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5],
      registers,
    });
    this.#paletteCalls = new Counter({
      name: `${prefix}palette_requests_total`,
      help: "HTTP requests to Palette, by rate-limit path prefix and HTTP status (error = no answer)",
      labelNames: ["prefix", "status"],
      registers,
    });
    this.#paletteRetries = new Counter({
      name: `${prefix}palette_retries_total`,
      help: "Palette requests retried after a 429, a 5xx or a reset connection",
      labelNames: ["prefix"],
      registers,
    });
    this.#paletteRateLimited = new Counter({
      name: `${prefix}palette_rate_limited_total`,
      help: "Palette answers with HTTP 429 (rate limited)",
      labelNames: ["prefix"],
      registers,
    });
    this.#tokenRefreshes = new Counter({
      name: `${prefix}palette_token_refreshes_total`,
      help: "Palette session token refreshes, by outcome",
      labelNames: ["outcome"],
      registers,
    });
    this.#logins = new Counter({
      name: `${prefix}palette_logins_total`,
      help: "Palette logins with the service account (e-mail and password for a token), by outcome",
      labelNames: ["outcome"],
      registers,
    });
    this.#pollDuration = new Histogram({
      name: `${prefix}poll_duration_seconds`,
      help: "Duration of one status/alert poll cycle, by outcome",
      labelNames: ["outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60],
      registers,
    });
    this.#pollClusters = new Gauge({
      name: `${prefix}poll_clusters`,
      help: "Clusters seen by the last completed poll",
      registers,
    });
    this.#pollCycles = new Counter({
      name: `${prefix}poll_cycles_total`,
      help: "Poll cycles that ran, by kind (incremental, reconcile) and outcome",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.#pollReconciling = new Gauge({
      name: `${prefix}poll_reconciling`,
      help: "1 while a reconciliation reads the whole fleet (incremental cycles go on meanwhile)",
      registers,
    });
    this.#reconcileSeconds = new Gauge({
      name: `${prefix}poll_reconcile_last_seconds`,
      help: "How long the last successful reconciliation (the full listing, committed) took",
      registers,
    });
    this.#radarRepavesSeconds = new Gauge({
      name: `${prefix}radar_repaves_last_seconds`,
      help: "How long the radar's work after the last reconciliation took (the pending-repave list, forgetting deleted clusters, the repave risks)",
      registers,
    });
    this.#radarRepavesStoreSeconds = new Gauge({
      name: `${prefix}radar_repaves_store_last_seconds`,
      help: "The part of the radar's work after the last reconciliation spent on the store (Palette's pages not counted)",
      registers,
    });
    this.#radarRequestsPerMinute = new Gauge({
      name: `${prefix}radar_requests_per_minute`,
      help: "The radar sweep's pace: Palette requests a minute (retries included), following the fleet up to RADAR_CALLS_PER_MINUTE",
      registers,
    });
    this.#pollCalls = new Gauge({
      name: `${prefix}poll_palette_calls`,
      help: "Palette API calls made by the last successful poll cycle of each kind",
      labelNames: ["kind"],
      registers,
    });
    this.#slackCalls = new Counter({
      name: `${prefix}slack_calls_total`,
      help: "Slack Web API calls, by method and outcome (ok, error, rate_limited)",
      labelNames: ["method", "outcome"],
      registers,
    });

    this.#conversations = new Counter({
      name: `${prefix}slack_conversations_total`,
      help: "Mentions, DMs and shared links, by event and outcome (answered, duplicate, ignored)",
      labelNames: ["event", "outcome"],
      registers,
    });

    this.#mintedKeyTrouble = new Counter({
      name: `${prefix}minted_key_trouble_total`,
      help: "LINK_METHOD=email: minted Palette API keys the bot could not delete (delete_failed) or whose creation answer it could not read (create_unreadable); outcome left = the key lives until it expires",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.#senderPauses = new Counter({
      name: `${prefix}slack_sender_paused_total`,
      help: "Times the notification sender paused because Slack refused the bot itself, by Slack's code (invalid_auth, missing_scope…)",
      labelNames: ["reason"],
      registers,
    });
    this.#senderPaused = new Gauge({
      name: `${prefix}slack_sender_paused`,
      help: "1 while the notification sender is paused on a workspace-level Slack refusal (it retries by itself), else 0",
      registers,
    });
    this.#senderPaused.set(0);

    const outboxStats = async (): Promise<OutboxStats | undefined> => {
      try {
        return await this.#outbox?.();
      } catch {
        // A failing source must not break the whole scrape; the gauges just keep their value.
        return undefined;
      }
    };
    new Gauge({
      name: `${prefix}outbox_depth`,
      help: "Notification messages waiting in the outbox",
      registers,
      async collect() {
        const stats = await outboxStats();
        if (stats) this.set(stats.depth);
      },
    });
    new Gauge({
      name: `${prefix}outbox_oldest_age_seconds`,
      help: "Age of the oldest message waiting in the outbox (0 when empty)",
      registers,
      async collect() {
        const stats = await outboxStats();
        if (stats) this.set(stats.oldestAgeSeconds);
      },
    });

    new Gauge({
      name: `${prefix}outbox_dead_letters`,
      help: "Notifications given up (retries spent, or refused even as plain text); /palette subscriptions retry re-sends them",
      registers,
      async collect() {
        const stats = await outboxStats();
        if (stats?.deadLetters !== undefined) this.set(stats.deadLetters);
      },
    });
    new Gauge({
      name: `${prefix}outbox_parked`,
      help: "Notifications held while the conversation they go to is closed to the bot; subscribing again there re-sends them",
      registers,
      async collect() {
        const stats = await outboxStats();
        if (stats?.parked !== undefined) this.set(stats.parked);
      },
    });

    // read at scrape time; without a source (a bot without the lease wired) they read 0
    const leaderGauge = (name: string, help: string, value: (stats: LeaderStats) => number) => {
      const read = () => this.#leader?.();
      new Gauge({
        name: `${prefix}${name}`,
        help,
        registers,
        collect() {
          const stats = read();
          if (stats) this.set(value(stats));
        },
      });
    };
    leaderGauge(
      "leader",
      "1 while this replica holds the leader lease and runs the poll, the sender, the launch tracker and the digests; 0 on a follower",
      (stats) => (stats.leading ? 1 : 0),
    );
    leaderGauge(
      "leader_lease_age_seconds",
      "Seconds since this replica last renewed its leader lease (0 on a follower); above LEADER_RENEW_MS means renewals fail",
      (stats) => stats.leaseAgeSeconds,
    );
    leaderGauge(
      "leader_lease_expires_in_seconds",
      "Seconds until this replica's leader lease ends unless renewed (0 on a follower)",
      (stats) => stats.expiresInSeconds,
    );

    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** A command finished (the dispatcher or Slack edge calls this once per command). */
  commandHandled(verb: string, outcome: string): void {
    let name = label(verb);
    if (this.#knownVerbs && !this.#knownVerbs.has(name)) name = OTHER;
    this.#commands.inc({ verb: name, outcome: label(outcome) });
  }

  /** Seconds between a Slack request arriving and `ack()` being sent. */
  observeAck(seconds: number): void {
    if (Number.isFinite(seconds) && seconds >= 0) this.#ack.observe(seconds);
  }

  /**
   * One HTTP exchange with Palette, by the client's rate-limit prefix; `status` is the HTTP
   * status, or "error" when no answer came.
   */
  paletteCall(prefix: string, status: number | "error"): void {
    this.#paletteCalls.inc({ prefix: paletteLabel(prefix), status: label(status) });
    if (status === 429) this.#paletteRateLimited.inc({ prefix: paletteLabel(prefix) });
  }

  /** A Palette request is about to be retried. */
  paletteRetry(prefix: string): void {
    this.#paletteRetries.inc({ prefix: paletteLabel(prefix) });
  }

  /** The session token was refreshed on its timer (or the refresh failed). */
  tokenRefreshed(outcome: "ok" | "error" = "ok"): void {
    this.#tokenRefreshes.inc({ outcome });
  }

  /** A full service-account login (first one, or after a refresh could not save the session). */
  paletteLogin(outcome: "ok" | "error" = "ok"): void {
    this.#logins.inc({ outcome });
  }

  /** A poll cycle ended: its duration and, when it succeeded, how many clusters it saw. */
  pollCompleted(seconds: number, clusters?: number, outcome: "ok" | "error" = "ok"): void {
    if (Number.isFinite(seconds) && seconds >= 0) this.#pollDuration.observe({ outcome }, seconds);
    if (clusters !== undefined && outcome === "ok") this.#pollClusters.set(clusters);
  }

  /**
   * A poll cycle ran: an incremental one (only what can have changed) or a reconciliation (the
   * full listing), and the Palette calls it made.
   */
  pollCycle(
    kind: "incremental" | "reconcile",
    outcome: "ok" | "error",
    paletteCalls: number,
  ): void {
    if (kind !== "incremental" && kind !== "reconcile") return;
    this.#pollCycles.inc({ kind, outcome });
    if (outcome === "ok" && Number.isFinite(paletteCalls))
      this.#pollCalls.set({ kind }, paletteCalls);
  }

  /** A reconciliation committed, in this many seconds. */
  reconciled(seconds: number): void {
    if (Number.isFinite(seconds)) this.#reconcileSeconds.set(seconds);
  }

  /** The radar's work after a reconciliation took this long; its sweep's pace now. */
  radar(state: {
    repavesSeconds?: number;
    repavesStoreSeconds?: number;
    requestsPerMinute?: number;
  }): void {
    if (state.repavesSeconds !== undefined) this.#radarRepavesSeconds.set(state.repavesSeconds);
    if (state.repavesStoreSeconds !== undefined)
      this.#radarRepavesStoreSeconds.set(state.repavesStoreSeconds);
    if (state.requestsPerMinute !== undefined)
      this.#radarRequestsPerMinute.set(state.requestsPerMinute);
  }

  /** A reconciliation began (true) or finished (false). */
  pollReconciling(active: boolean): void {
    this.#pollReconciling.set(active ? 1 : 0);
  }

  /** One Slack Web API call (`chat.postMessage`, `views.publish`…) and how it went. */
  conversation(event: string, outcome: string): void {
    this.#conversations.inc({ event: label(event), outcome: label(outcome) });
  }

  slackCall(method: string, outcome: "ok" | "error" | "rate_limited" | string): void {
    this.#slackCalls.inc({ method: label(method), outcome: label(outcome) });
  }

  /** The notification sender paused: Slack refused the bot itself with `reason`. */
  /** LINK_METHOD=email: a minted key not deleted when its command ended, or created unseen */
  mintedKeyTrouble(kind: "delete_failed" | "create_unreadable", outcome: "deleted" | "left"): void {
    this.#mintedKeyTrouble.inc({ kind, outcome });
  }

  senderPaused(reason: string): void {
    this.#senderPauses.inc({ reason: label(reason) });
    this.#senderPaused.set(1);
  }

  /** Slack accepts the bot again; the sender goes on. */
  senderResumed(): void {
    this.#senderPaused.set(0);
  }

  /** Where the outbox gauges read from at scrape time (set once the outbox exists). */
  setOutboxSource(source: OutboxSource): void {
    this.#outbox = source;
  }

  /** Where the leader gauges read from at scrape time (set once the elector exists). */
  setLeaderSource(source: LeaderSource): void {
    this.#leader = source;
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The Content-Type of `render()`'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
