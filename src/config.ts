import cron from "node-cron";
import { z } from "zod";
import { CHANGE_VERB_NAMES } from "./model/change.ts";
import { Secret } from "./secret.ts";

/**
 * Every environment variable the bot reads (the table in docs/configuration.md), parsed once at start-up.
 * A wrong or missing value stops the bot with one line naming the variable and what it wants.
 */

const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value ? new Secret(value) : undefined));

/** 32 random bytes, base64 (`openssl rand -base64 32`): the key that encrypts linked identities */
const identityKey = z
  .string()
  .optional()
  .refine((value) => value === undefined || Buffer.from(value.trim(), "base64").length === 32, {
    message: "wants 32 random bytes, base64-encoded (e.g. `openssl rand -base64 32`)",
  })
  .transform((value) => (value ? new Secret(value.trim()) : undefined));

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const url = (what: string) =>
  z
    .string()
    .url({ message: `wants an absolute URL (${what})` })
    .transform((value) => (value.endsWith("/") ? value : `${value}/`));

const cronExpression = z.string().refine((value) => cron.validate(value.trim()), {
  message: "wants a valid node-cron expression of 5 or 6 fields, e.g. */30 * * * * *",
});

const tcpPort = z.coerce
  .number({ message: "wants a TCP port number" })
  .int()
  .min(0, "wants a TCP port number from 0 to 65535")
  .max(65535, "wants a TCP port number from 0 to 65535");

const milliseconds = z.coerce
  .number({ message: "wants a whole number of milliseconds" })
  .int("wants a whole number of milliseconds")
  .positive("wants a whole number of milliseconds above 0");

const slackIdList = csv.refine(
  (ids) => ids.every((id) => id === "*" || /^[UWS][A-Z0-9]{2,}$/.test(id)),
  {
    message:
      "wants comma-separated Slack user IDs (U…/W…) or user-group IDs (S…), or * for everyone",
  },
);

const POSTGRES_URL_WANTS =
  "wants a postgres:// or postgresql:// URL with a host, e.g. postgres://user:password@db:5432/chatops";

const isPostgresScheme = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value.trim());

/** A PostgreSQL connection URL that parses; never echoed (it holds the password). */
function isPostgresUrl(value: string): boolean {
  if (!isPostgresScheme(value)) return false;
  try {
    return new URL(value.trim()).hostname !== "";
  } catch {
    return false;
  }
}

/**
 * A proxy's URL (HTTPS_PROXY, HTTP_PROXY): http:// or https:// with a host. It may carry a
 * user and password, so it stays a Secret and is never echoed.
 */
const proxyUrl = z
  .string()
  .optional()
  .refine(
    (value) => {
      if (value === undefined) return true;
      try {
        const parsed = new URL(value.trim());
        return (
          (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== ""
        );
      } catch {
        return false;
      }
    },
    { message: "wants the proxy's URL, http://host:port (or http://user:password@host:port)" },
  )
  .transform((value) => (value ? new Secret(value.trim()) : undefined));

/** The proxy variables also come lower-case (curl's and undici's convention: that form wins). */
const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"] as const;

const rawEnvSchema = z.object({
  HTTPS_PROXY: proxyUrl,
  HTTP_PROXY: proxyUrl,
  NO_PROXY: z.string().optional(),
  SLACK_BOT_TOKEN: optionalSecret,
  SLACK_SIGNING_SECRET: optionalSecret,
  SLACK_APP_TOKEN: optionalSecret,
  SLACK_API_URL: url("the Slack Web API base").prefault("https://slack.com/api/"),
  SLACK_TEAM_ID: z
    .string()
    .regex(/^[TE][A-Z0-9]{2,}$/, { message: "wants the workspace ID, e.g. T0123ABCD" })
    .optional(),
  PORT: tcpPort.default(3000),
  METRICS_PORT: tcpPort.optional(),
  PALETTE_API_URL: url("the Palette API base").prefault("https://api.spectrocloud.com"),
  PALETTE_API_KEY: optionalSecret,
  PALETTE_EMAIL: z.string().optional(),
  PALETTE_ORG: z.string().optional(),
  PALETTE_PASSWORD: optionalSecret,
  PALETTE_PROJECTS: csv,
  PALETTE_CONSOLE_URL: url("the Palette console base").prefault("https://console.spectrocloud.com"),
  POLL_SCHEDULE: cronExpression.default("*/30 * * * * *"),
  RECONCILE_SCHEDULE: cronExpression.default("0 */10 * * * *"),
  TOKEN_REFRESH_SCHEDULE: cronExpression.default("*/10 * * * *"),
  STATE_DB: z
    .string()
    .optional()
    .refine((value) => value === undefined || !isPostgresScheme(value) || isPostgresUrl(value), {
      message: POSTGRES_URL_WANTS,
    })
    .transform((value) => (value && isPostgresScheme(value) ? new Secret(value.trim()) : value)),
  DATABASE_URL: z
    .string()
    .optional()
    .refine((value) => value === undefined || isPostgresUrl(value), { message: POSTGRES_URL_WANTS })
    .transform((value) => (value ? new Secret(value.trim()) : undefined)),
  // the image's SQLite path (its /data volume), read only when neither store is chosen; an image
  // ENV of STATE_DB itself would outrank the operator's DATABASE_URL (issue 32)
  SQLITE_DEFAULT_PATH: z.string().optional(),
  LEADER_LEASE_TTL_MS: milliseconds.default(15_000),
  LEADER_RENEW_MS: milliseconds.default(5_000),
  ALLOW_LAUNCH: slackIdList,
  ALLOW_KUBECONFIG: slackIdList,
  ALLOW_SUBSCRIBE: slackIdList,
  ALLOW_ACK: slackIdList,
  ALLOW_SCALE: slackIdList,
  ALLOW_MAINTENANCE: slackIdList,
  ALLOW_LOGS: slackIdList,
  ALLOW_BACKUP: slackIdList,
  ALLOW_UPGRADE: slackIdList,
  ALLOW_DELETE: slackIdList,
  /** who may export the audit (`/palette audit`); nobody when unset */
  ALLOW_AUDIT: slackIdList,
  ALLOW_FREEZE: slackIdList,
  /** who may ask `/palette why` (it reads Palette's audit, actors' e-mails); everyone when unset */
  ALLOW_WHY: slackIdList,
  /** the likely-cause line on channel cards names the actor's e-mail, not their Palette name */
  WHY_SHOW_EMAIL: z
    .enum(["true", "false"], { message: "wants true or false" })
    .default("false")
    .transform((value) => value === "true"),
  /** audit rows older than this are deleted by the lease holder (issue 25) */
  AUDIT_RETENTION_DAYS: z.coerce
    .number({ message: "wants a number of days" })
    .int({ message: "wants a whole number of days" })
    .min(1, { message: "wants at least 1 day" })
    .max(36_500, { message: "wants at most 36500 days (100 years)" })
    .default(400),
  /** ended day-2 changes older than this are deleted by the lease holder (issue 31) */
  CHANGES_RETENTION_DAYS: z.coerce
    .number({ message: "wants a number of days" })
    .int({ message: "wants a whole number of days" })
    .min(1, { message: "wants at least 1 day" })
    .max(36_500, { message: "wants at most 36500 days (100 years)" })
    .default(400),
  /** `/palette audit`: at most this many of Palette's own audit entries in one export (issue 27) */
  AUDIT_EXPORT_MAX: z.coerce
    .number({ message: "wants a number of entries" })
    .int({ message: "wants a whole number of entries" })
    .min(1, { message: "wants at least 1 entry" })
    .max(1_000_000, { message: "wants at most 1000000 entries" })
    .default(10_000),
  /**
   * `/palette audit`: the temp volume's own limit (the chart's /tmp sizeLimit, enforced by
   * eviction, which statfs does not see: it reports the node's disk); unset: statfs alone
   */
  AUDIT_TMP_BYTES: z.coerce
    .number({ message: "wants a number of bytes" })
    .int({ message: "wants a whole number of bytes" })
    .min(1_048_576, { message: "wants at least 1048576 bytes (1 MiB)" })
    .optional(),
  /** the radar (issue 28): certificates within this many days of expiry are a risk */
  CERT_WARN_DAYS: z.coerce
    .number({ message: "wants a number of days" })
    .int({ message: "wants a whole number of days" })
    .min(8, { message: "wants at least 8 days (within 7 a risk is critical already)" })
    .max(365, { message: "wants at most 365 days" })
    .default(30),
  /** a repave pending approval for longer than this many hours is a risk */
  REPAVE_WARN_HOURS: z.coerce
    .number({ message: "wants a number of hours" })
    .int({ message: "wants a whole number of hours" })
    .min(1, { message: "wants at least 1 hour" })
    .max(8_760, { message: "wants at most 8760 hours (a year)" })
    .default(24),
  /**
   * the cap on the radar's Palette requests a minute (retries included), behind the poll and
   * commands; the pace itself follows the fleet (one pass a day); 0 turns the sweep off
   */
  RADAR_CALLS_PER_MINUTE: z.coerce
    .number({ message: "wants a number of requests per minute" })
    .int({ message: "wants a whole number of requests per minute" })
    .min(0, { message: "wants 0 (off) or more" })
    .max(600, { message: "wants at most 600 (10 a second; it runs behind the poll anyway)" })
    .default(600),
  /**
   * the edge fleet (issue 39): a host read unhealthy is told once dark this many minutes, so a
   * flaky store link that comes back within it pages nobody
   */
  EDGE_UNHEALTHY_GRACE: z.coerce
    .number({ message: "wants a number of minutes" })
    .int({ message: "wants a whole number of minutes" })
    .min(0, { message: "wants 0 (tell at once) or more minutes" })
    .max(1_440, { message: "wants at most 1440 minutes (a day)" })
    .default(2),
  /** the tag key naming an edge host's site (`site:store-0142`): a site's hosts roll up together */
  EDGE_SITE_TAG: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/, {
      message: "wants a tag key: letters, digits, '.', '_', '/', '-' (no ':')",
    })
    .default("site"),
  /** the radar (issue 39): an edge registration token expiring within this many days is a risk */
  EDGE_TOKEN_WARN_DAYS: z.coerce
    .number({ message: "wants a number of days" })
    .int({ message: "wants a whole number of days" })
    .min(1, { message: "wants at least 1 day" })
    .max(365, { message: "wants at most 365 days" })
    .default(14),
  /** an edge host's remote shell open longer than this many hours is a risk */
  EDGE_SHELL_WARN_HOURS: z.coerce
    .number({ message: "wants a number of hours" })
    .int({ message: "wants a whole number of hours" })
    .min(1, { message: "wants at least 1 hour" })
    .max(720, { message: "wants at most 720 hours (30 days)" })
    .default(8),
  /** an edge host `ready` and running no cluster for longer than this many days is a risk */
  EDGE_UNUSED_DAYS: z.coerce
    .number({ message: "wants a number of days" })
    .int({ message: "wants a whole number of days" })
    .min(1, { message: "wants at least 1 day" })
    .max(365, { message: "wants at most 365 days" })
    .default(30),
  APPROVAL_REQUIRED: csv.pipe(
    z.array(
      z.enum(CHANGE_VERB_NAMES, {
        message: `wants change verbs, comma-separated: ${CHANGE_VERB_NAMES.join(", ")}`,
      }),
    ),
  ),
  APPROVALS_CHANNEL: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/, { message: "wants a channel ID, e.g. C0123ABCD" })
    .optional(),
  APPROVAL_TTL_MINUTES: z.coerce
    .number({ message: "wants a number of minutes" })
    .int({ message: "wants a whole number of minutes" })
    .min(1, { message: "wants at least 1 minute" })
    .max(24 * 60, { message: "wants at most 1440 minutes (a day)" })
    .default(30),
  LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error"], { message: "wants one of debug, info, warn, error" })
    .default("info"),
  IDENTITY: z
    .enum(["service", "linked", "strict"], { message: "wants one of service, linked, strict" })
    .default("service"),
  LINK_METHOD: z.enum(["key", "email"], { message: "wants key or email" }).default("key"),
  IDENTITY_KEY: identityKey,
  IDENTITY_KEY_PREVIOUS: identityKey,
  ...assistantEnv(),
});

export type PaletteCredentials =
  | { kind: "apiKey"; apiKey: Secret }
  | { kind: "serviceAccount"; email: string; org: string; password: Secret };

/**
 * Where the bot keeps its state: a SQLite file (one replica, the default) or a PostgreSQL
 * database (several replicas; the URL holds the password, so it stays a Secret).
 */
export type StateStore = { kind: "sqlite"; path: string } | { kind: "postgres"; url: Secret };

const DEFAULT_STATE_DB = "./data/palette-chatops.sqlite";

export interface SlackConfig {
  botToken: Secret;
  signingSecret?: Secret;
  appToken?: Secret;
  apiUrl: string;
  mode: "socket" | "http";
  /** SLACK_TEAM_ID: every request from another workspace (Slack Connect) is refused */
  homeTeamId?: string;
}

/**
 * The outbound proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, or their lower-case forms) for every
 * HTTP client of the bot: Palette, Slack's Web API and Socket Mode, the model. NO_PROXY lists
 * hosts, `.domains` and `host:port`, comma- or space-separated, or `*`.
 */
export interface ProxyConfig {
  httpsProxy?: Secret;
  httpProxy?: Secret;
  noProxy: string;
}

export interface Config {
  slack?: SlackConfig;
  /** absent fields: no proxy for that scheme */
  proxy: ProxyConfig;
  port: number;
  /**
   * METRICS_PORT: /healthz, /readyz and /metrics on their own port, off the Slack ingress;
   * undefined = on `port` beside the Slack endpoint
   */
  metricsPort?: number;
  palette: {
    apiUrl: string;
    credentials: PaletteCredentials;
    projects: string[];
    consoleUrl: string;
  };
  pollSchedule: string;
  /** the full reconciliation; the polls between are incremental */
  reconcileSchedule: string;
  tokenRefreshSchedule: string;
  /** STATE_DB or DATABASE_URL (refused when both name different stores), else SQLITE_DEFAULT_PATH */
  stateDb: StateStore;
  /**
   * The leader lease (LEADER_LEASE_TTL_MS, LEADER_RENEW_MS): one replica runs the poll, the
   * sender, the launch tracker and the digests; the others take over within a TTL of its end
   */
  leader: { ttlMs: number; renewEveryMs: number };
  allowLaunch: string[];
  allowKubeconfig: string[];
  /** who may change a channel's subscriptions; `*` (everyone) when unset */
  allowSubscribe: string[];
  /** who may acknowledge a notification card; `*` (everyone) when unset */
  allowAck: string[];
  /** ALLOW_SCALE … ALLOW_DELETE: who may make day-2 changes; nobody when unset */
  allowChanges: Record<
    "scale" | "maintenance" | "logs" | "backup" | "upgrade" | "delete",
    string[]
  >;
  /** the two-person rule (APPROVAL_REQUIRED, APPROVALS_CHANNEL, APPROVAL_TTL_MINUTES) */
  approvals: ApprovalConfig;
  /** ALLOW_AUDIT: who may export the audit with `/palette audit`; nobody when unset */
  allowAudit: string[];
  /**
   * ALLOW_FREEZE: who may set a freeze and lift anyone's; empty when unset, which the policy
   * reads as whoever may make some change (any change list or ALLOW_LAUNCH)
   */
  allowFreeze: string[];
  /** ALLOW_WHY: who may ask `/palette why`; `*` (everyone) when unset */
  allowWhy: string[];
  /** WHY_SHOW_EMAIL: a channel card's likely-cause line names the actor's e-mail */
  whyShowEmail: boolean;
  /** AUDIT_RETENTION_DAYS: how long audit rows are kept */
  auditRetentionDays: number;
  /** the radar (CERT_WARN_DAYS, REPAVE_WARN_HOURS, RADAR_CALLS_PER_MINUTE) */
  radar: { certWarnDays: number; repaveWarnHours: number; callsPerMinute: number };
  /** CHANGES_RETENTION_DAYS: how long an ended day-2 change is kept */
  changesRetentionDays: number;
  /** the edge fleet (EDGE_UNHEALTHY_GRACE, EDGE_SITE_TAG; issue 39) */
  edge: { unhealthyGraceMs: number; siteTag: string };
  /** the radar's edge risks (EDGE_TOKEN_WARN_DAYS, EDGE_SHELL_WARN_HOURS, EDGE_UNUSED_DAYS) */
  edgeRisks: { tokenWarnDays: number; shellWarnHours: number; unusedDays: number };
  /** AUDIT_EXPORT_MAX: Palette's entries in one `/palette audit` export at most */
  auditExportMax: number;
  /** AUDIT_TMP_BYTES: the temp volume's size limit, when it has one statfs cannot see */
  auditTmpBytes?: number;
  logLevel: "debug" | "info" | "warn" | "error";
  identity: IdentityConfig;
  /** ASSISTANT_PROVIDER and friends (issue 33); absent: no assistant and no model traffic */
  assistant?: AssistantConfig;
}

/**
 * Who commands run as in Palette (issue 20). `service`: the bot's own credential, as always;
 * `linked`: a kubeconfig and a launch run as the person's own Palette user, linked with
 * `/palette login`; `strict`: the reads (clusters, cluster, nodes, workloads, alerts) too.
 */
export interface IdentityConfig {
  mode: "service" | "linked" | "strict";
  /** LINK_METHOD: `key` (the person pastes a personal API key) or `email` */
  method: "key" | "email";
  /** IDENTITY_KEY (encrypts), and IDENTITY_KEY_PREVIOUS (still decrypts, during a rotation) */
  keys?: { current: Secret; previous?: Secret };
}

/** Which change verbs need a second person, where their requests go, how long they stand. */
export interface ApprovalConfig {
  verbs: string[];
  /** absent: the request card goes to the channel the change was asked in */
  channel?: string;
  ttlMs: number;
}

/** Thrown for a bad environment; its message is the one line an operator reads. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    wants: string,
  ) {
    super(`${variable}: ${wants}`);
    this.name = "ConfigError";
  }
}

export interface LoadOptions {
  /** `start` needs Slack credentials; `console`/`demo` do not. */
  requireSlack: boolean;
}

export type LogLevel = z.infer<typeof rawEnvSchema.shape.LOG_LEVEL>;

/**
 * LOG_LEVEL alone, for the verbs that need no other configuration (`demo`): the same rule and the
 * same one-line error as loadConfig, with the verb's own default when it is unset.
 */
export function logLevelFrom(
  env: Record<string, string | undefined>,
  fallback: LogLevel,
): LogLevel {
  const value = env.LOG_LEVEL?.trim();
  if (!value) return fallback;
  const parsed = rawEnvSchema.shape.LOG_LEVEL.safeParse(value);
  if (!parsed.success) throw new ConfigError("LOG_LEVEL", parsed.error.issues[0]!.message);
  return parsed.data;
}

export function loadConfig(
  env: Record<string, string | undefined>,
  options: LoadOptions = { requireSlack: true },
): Config {
  // An empty variable means "not set": operators often template env files with blanks.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  for (const name of PROXY_VARIABLES) {
    const lower = cleaned[name.toLowerCase()];
    if (lower !== undefined) cleaned[name] = lower;
  }
  const parsed = rawEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? "environment"), issue.message);
  }
  const raw = parsed.data;

  let slack: SlackConfig | undefined;
  if (raw.SLACK_BOT_TOKEN) {
    if (!raw.SLACK_APP_TOKEN && !raw.SLACK_SIGNING_SECRET) {
      throw new ConfigError(
        "SLACK_SIGNING_SECRET",
        "required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)",
      );
    }
    slack = {
      botToken: raw.SLACK_BOT_TOKEN,
      signingSecret: raw.SLACK_SIGNING_SECRET,
      appToken: raw.SLACK_APP_TOKEN,
      apiUrl: raw.SLACK_API_URL,
      mode: raw.SLACK_APP_TOKEN ? "socket" : "http",
      homeTeamId: raw.SLACK_TEAM_ID,
    };
  } else if (options.requireSlack) {
    throw new ConfigError("SLACK_BOT_TOKEN", "required: the bot token (xoxb-…) of your Slack app");
  }
  // after Slack: an empty environment names the first thing a newcomer sets up
  const credentials = paletteCredentials(raw);
  // two renewals fit in a lease: one late or lost renewal does not cost it
  if (raw.LEADER_RENEW_MS * 2 >= raw.LEADER_LEASE_TTL_MS) {
    throw new ConfigError(
      "LEADER_RENEW_MS",
      `wants an interval under half of LEADER_LEASE_TTL_MS (${raw.LEADER_LEASE_TTL_MS}), so one late renewal does not cost the lease`,
    );
  }

  return {
    slack,
    proxy: {
      httpsProxy: raw.HTTPS_PROXY,
      httpProxy: raw.HTTP_PROXY,
      noProxy: raw.NO_PROXY?.trim() ?? "",
    },
    port: raw.PORT,
    metricsPort: raw.METRICS_PORT === raw.PORT ? undefined : raw.METRICS_PORT,
    palette: {
      apiUrl: raw.PALETTE_API_URL,
      credentials,
      projects: raw.PALETTE_PROJECTS,
      consoleUrl: raw.PALETTE_CONSOLE_URL,
    },
    pollSchedule: raw.POLL_SCHEDULE,
    reconcileSchedule: raw.RECONCILE_SCHEDULE,
    tokenRefreshSchedule: raw.TOKEN_REFRESH_SCHEDULE,
    stateDb: stateStore(raw),
    leader: { ttlMs: raw.LEADER_LEASE_TTL_MS, renewEveryMs: raw.LEADER_RENEW_MS },
    allowLaunch: raw.ALLOW_LAUNCH,
    allowKubeconfig: raw.ALLOW_KUBECONFIG,
    // open by default, as before the variable existed: a channel's members manage its alerts
    allowSubscribe: raw.ALLOW_SUBSCRIBE.length > 0 ? raw.ALLOW_SUBSCRIBE : ["*"],
    // open too: on-call is whoever is in the channel when it breaks
    allowAck: raw.ALLOW_ACK.length > 0 ? raw.ALLOW_ACK : ["*"],
    allowChanges: {
      scale: raw.ALLOW_SCALE,
      maintenance: raw.ALLOW_MAINTENANCE,
      logs: raw.ALLOW_LOGS,
      backup: raw.ALLOW_BACKUP,
      upgrade: raw.ALLOW_UPGRADE,
      delete: raw.ALLOW_DELETE,
    },
    approvals: {
      verbs: raw.APPROVAL_REQUIRED,
      channel: raw.APPROVALS_CHANNEL,
      ttlMs: raw.APPROVAL_TTL_MINUTES * 60_000,
    },
    allowAudit: raw.ALLOW_AUDIT,
    allowFreeze: raw.ALLOW_FREEZE,
    // open, as `why` was: whoever may read a cluster may ask why; ALLOW_WHY narrows it
    allowWhy: raw.ALLOW_WHY.length > 0 ? raw.ALLOW_WHY : ["*"],
    whyShowEmail: raw.WHY_SHOW_EMAIL,
    auditRetentionDays: raw.AUDIT_RETENTION_DAYS,
    radar: {
      certWarnDays: raw.CERT_WARN_DAYS,
      repaveWarnHours: raw.REPAVE_WARN_HOURS,
      callsPerMinute: raw.RADAR_CALLS_PER_MINUTE,
    },
    edge: { unhealthyGraceMs: raw.EDGE_UNHEALTHY_GRACE * 60_000, siteTag: raw.EDGE_SITE_TAG },
    edgeRisks: {
      tokenWarnDays: raw.EDGE_TOKEN_WARN_DAYS,
      shellWarnHours: raw.EDGE_SHELL_WARN_HOURS,
      unusedDays: raw.EDGE_UNUSED_DAYS,
    },
    auditExportMax: raw.AUDIT_EXPORT_MAX,
    ...(raw.AUDIT_TMP_BYTES !== undefined ? { auditTmpBytes: raw.AUDIT_TMP_BYTES } : {}),
    changesRetentionDays: raw.CHANGES_RETENTION_DAYS,
    logLevel: raw.LOG_LEVEL,
    identity: identityConfig(raw),
    assistant: assistantConfig(raw),
  };
}

function identityConfig(raw: z.infer<typeof rawEnvSchema>): IdentityConfig {
  if (raw.IDENTITY !== "service" && !raw.IDENTITY_KEY) {
    throw new ConfigError(
      "IDENTITY_KEY",
      `required with IDENTITY=${raw.IDENTITY}: 32 random bytes, base64 (\`openssl rand -base64 32\`), to encrypt the linked keys`,
    );
  }
  if (raw.IDENTITY_KEY_PREVIOUS && !raw.IDENTITY_KEY) {
    throw new ConfigError(
      "IDENTITY_KEY",
      "required with IDENTITY_KEY_PREVIOUS (the key rotated to)",
    );
  }
  return {
    mode: raw.IDENTITY,
    method: raw.LINK_METHOD,
    ...(raw.IDENTITY_KEY
      ? { keys: { current: raw.IDENTITY_KEY, previous: raw.IDENTITY_KEY_PREVIOUS } }
      : {}),
  };
}

const storeEnvSchema = rawEnvSchema.pick({
  STATE_DB: true,
  DATABASE_URL: true,
  SQLITE_DEFAULT_PATH: true,
});

/**
 * Only the store's variables (STATE_DB, DATABASE_URL, SQLITE_DEFAULT_PATH), for the verbs that
 * need nothing else: `backup` and `restore` run without Slack or Palette credentials.
 */
export function loadStoreConfig(env: Record<string, string | undefined>): StateStore {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  const parsed = storeEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? "environment"), issue.message);
  }
  return stateStore(parsed.data);
}

function stateStore(raw: z.infer<typeof storeEnvSchema>): StateStore {
  const { STATE_DB: stateDb, DATABASE_URL: databaseUrl } = raw;
  // Both set and naming different stores: whichever won, the operator meant the other one half
  // the time (an image's or a chart's leftover beside their own), so nothing starts.
  if (stateDb !== undefined && databaseUrl !== undefined && !sameStore(stateDb, databaseUrl)) {
    throw new ConfigError(
      "STATE_DB",
      `conflicts with DATABASE_URL: the two name different stores (STATE_DB ${describeStore(stateDb)}, DATABASE_URL a PostgreSQL URL), so the bot does not guess; set only one (DATABASE_URL alone for PostgreSQL)`,
    );
  }
  const chosen = databaseUrl ?? stateDb ?? raw.SQLITE_DEFAULT_PATH ?? DEFAULT_STATE_DB;
  return chosen instanceof Secret
    ? { kind: "postgres", url: chosen }
    : { kind: "sqlite", path: chosen };
}

function sameStore(stateDb: string | Secret, databaseUrl: Secret): boolean {
  return stateDb instanceof Secret && stateDb.reveal() === databaseUrl.reveal();
}

/** a SQLite path is no secret; a URL is, so only its kind is named */
function describeStore(store: string | Secret): string {
  return store instanceof Secret ? "a different PostgreSQL URL" : `the SQLite file ${store}`;
}

function paletteCredentials(raw: z.infer<typeof rawEnvSchema>): PaletteCredentials {
  if (raw.PALETTE_API_KEY) return { kind: "apiKey", apiKey: raw.PALETTE_API_KEY };
  const account = [raw.PALETTE_EMAIL, raw.PALETTE_ORG, raw.PALETTE_PASSWORD];
  if (account.every((value) => value !== undefined)) {
    return {
      kind: "serviceAccount",
      email: raw.PALETTE_EMAIL!,
      org: raw.PALETTE_ORG!,
      password: raw.PALETTE_PASSWORD!,
    };
  }
  if (account.some((value) => value !== undefined)) {
    const missing = ["PALETTE_EMAIL", "PALETTE_ORG", "PALETTE_PASSWORD"].find(
      (_, index) => account[index] === undefined,
    )!;
    throw new ConfigError(missing, "required with the other service-account variables");
  }
  throw new ConfigError(
    "PALETTE_API_KEY",
    "one Palette credential is required: PALETTE_API_KEY, or PALETTE_EMAIL + PALETTE_ORG + PALETTE_PASSWORD",
  );
}

/** The grounded assistant's variables (issue 33; docs/assistant.md). */
function assistantEnv() {
  const count = (what: string, min: number, max: number) =>
    z.coerce
      .number({ message: `wants a number of ${what}` })
      .int({ message: `wants a whole number of ${what}` })
      .min(min, { message: `wants at least ${min} ${what}` })
      .max(max, { message: `wants at most ${max} ${what}` });
  return {
    ASSISTANT_PROVIDER: z
      .enum(["openai", "anthropic", "openai-compatible"], {
        message: "wants one of openai, anthropic, openai-compatible",
      })
      .optional(),
    ASSISTANT_BASE_URL: z
      .string()
      .url({ message: "wants an absolute URL (the model API base)" })
      .optional(),
    ASSISTANT_MODEL: z.string().max(200).optional(),
    ASSISTANT_API_KEY: optionalSecret,
    ASSISTANT_MAX_TOOL_CALLS: count("tool calls", 1, 32).default(8),
    ASSISTANT_MAX_PALETTE_REQUESTS: count("requests", 1, 1_000).default(40),
    ASSISTANT_TOKEN_BUDGET: count("tokens", 1_000, 1_000_000).default(16_000),
    ASSISTANT_PER_USER_PER_HOUR: count("questions", 1, 10_000).default(20),
    ASSISTANT_MAX_CONCURRENT: count("answers", 1, 64).default(4),
    ASSISTANT_TIMEOUT_MS: milliseconds.default(60_000),
    ASSISTANT_HISTORY_DAYS: count("days", 1, 365).default(7),
    ASSISTANT_PROPOSE_DANGEROUS: z
      .enum(["true", "false"], { message: "wants true or false" })
      .default("false")
      .transform((value) => value === "true"),
    ASSISTANT_AUDIT_TEXT: z
      .enum(["true", "false"], { message: "wants true or false" })
      .default("false")
      .transform((value) => value === "true"),
    ASSISTANT_REDACT: z
      .string()
      .max(100)
      .default("")
      .transform((value) =>
        value
          .split(",")
          .map((item) => item.trim().toLowerCase())
          .filter((item) => item !== ""),
      )
      .pipe(
        z.array(
          z.enum(["emails", "names"], {
            message: "wants a list of emails, names (comma-separated)",
          }),
        ),
      ),
  };
}

/** The model the assistant asks, and its bounds (src/assistant/). */
export interface AssistantConfig {
  provider: "openai" | "anthropic" | "openai-compatible";
  /** ASSISTANT_BASE_URL; absent: the provider's own API */
  baseUrl?: string;
  model: string;
  apiKey?: Secret;
  maxToolCalls: number;
  /**
   * ASSISTANT_MAX_PALETTE_REQUESTS: Palette HTTP requests one question may make, each page and
   * retry counted (issue 36); absent: 40
   */
  maxPaletteRequests?: number;
  /** tokens in and out per question, tool results included */
  tokenBudget: number;
  perUserPerHour: number;
  /**
   * ASSISTANT_MAX_CONCURRENT: answers worked out at once on a replica, in a room of their own
   * beside the commands' slots (issue 36); absent: 4
   */
  maxConcurrent?: number;
  timeoutMs: number;
  historyDays: number;
  /** ASSISTANT_AUDIT_TEXT: keep the text of questions and answers in the audit */
  auditText: boolean;
  /** ASSISTANT_PROPOSE_DANGEROUS: the assistant may offer delete and upgrade buttons */
  proposeDangerous?: boolean;
  /**
   * ASSISTANT_REDACT: what is taken out of reads before the model sees them (an external
   * model): e-mail addresses (always, unless WHY_SHOW_EMAIL=true), people's names
   */
  redact?: ReadonlyArray<"emails" | "names">;
  /** WHY_SHOW_EMAIL, as the assistant applies it: e-mails may reach the model and a channel */
  showEmail?: boolean;
}

function assistantConfig(raw: z.infer<typeof rawEnvSchema>): AssistantConfig | undefined {
  const provider = raw.ASSISTANT_PROVIDER;
  if (!provider) return undefined;
  if (!raw.ASSISTANT_MODEL) {
    throw new ConfigError(
      "ASSISTANT_MODEL",
      `required with ASSISTANT_PROVIDER=${provider}: the model's name`,
    );
  }
  if (provider === "openai-compatible" && !raw.ASSISTANT_BASE_URL) {
    throw new ConfigError(
      "ASSISTANT_BASE_URL",
      "required with ASSISTANT_PROVIDER=openai-compatible: the server's /v1 base, e.g. http://vllm:8000/v1",
    );
  }
  if (provider !== "openai-compatible" && !raw.ASSISTANT_API_KEY) {
    throw new ConfigError("ASSISTANT_API_KEY", `required with ASSISTANT_PROVIDER=${provider}`);
  }
  return {
    provider,
    baseUrl: raw.ASSISTANT_BASE_URL,
    model: raw.ASSISTANT_MODEL,
    apiKey: raw.ASSISTANT_API_KEY,
    maxToolCalls: raw.ASSISTANT_MAX_TOOL_CALLS,
    maxPaletteRequests: raw.ASSISTANT_MAX_PALETTE_REQUESTS,
    tokenBudget: raw.ASSISTANT_TOKEN_BUDGET,
    perUserPerHour: raw.ASSISTANT_PER_USER_PER_HOUR,
    maxConcurrent: raw.ASSISTANT_MAX_CONCURRENT,
    timeoutMs: raw.ASSISTANT_TIMEOUT_MS,
    historyDays: raw.ASSISTANT_HISTORY_DAYS,
    auditText: raw.ASSISTANT_AUDIT_TEXT,
    proposeDangerous: raw.ASSISTANT_PROPOSE_DANGEROUS,
    redact: raw.ASSISTANT_REDACT,
    showEmail: raw.WHY_SHOW_EMAIL,
  };
}

/** The variables, their meaning and default, for the table in docs/configuration.md (kept in step by a test). */
export const CONFIG_VARIABLES = Object.keys(rawEnvSchema.shape);
