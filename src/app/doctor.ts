import type { Clock } from "../clock.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import {
  describeProxy,
  fetchThrough,
  NO_PROXY_CONFIG,
  noProxyRanges,
  proxyDispatcher,
  proxyInUse,
} from "../proxy.ts";
import { inspectStore, type StoreInspection } from "../store/inspect.ts";
import { assistantCheck } from "./doctor-assistant.ts";
import { paletteChecks } from "./doctor-palette.ts";
import { type Answer, bounded, type Probe, skewLine } from "./doctor-probe.ts";
import { quotedValueLines, unquoted } from "./doctor-quotes.ts";
import { type CheckLine, renderDoctor, verdictOf } from "./doctor-report.ts";
import { skipped, slackChecks } from "./doctor-slack.ts";

/**
 * `palette-chatops doctor` (also `npm run doctor`, and what `helm test` runs): is this install
 * healthy, and if not, what to do. It reads the same environment `start` does, asks Slack,
 * Palette and the store what the bot would meet, and prints one line per check. It changes
 * nothing: no migration, no message, no lease taken. Exit 0 when the bot can run; 1 when a check
 * failed, and the last line names them.
 */

export interface DoctorOptions {
  env: Record<string, string | undefined>;
  clock: Clock;
  fetch?: typeof fetch;
  /** the longest one call to Slack, Palette or the database may take (default 10 s) */
  timeoutMs?: number;
}

export interface DoctorReport {
  lines: CheckLine[];
  exitCode: 0 | 1;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  let config: Config;
  try {
    config = loadConfig(options.env, { requireSlack: true });
  } catch (error) {
    const lines: CheckLine[] = [
      {
        check: "config",
        status: "fail",
        result:
          error instanceof ConfigError
            ? `the environment does not parse: ${error.message}`
            : "the environment does not parse",
        fix: "set the variable as docs/configuration.md says (.env.example lists every one); nothing else was checked",
      },
      // a quoted URL or number is often why it does not parse
      ...quotedValueLines(options.env),
    ];
    return { lines, exitCode: 1 };
  }

  // the doctor asks Slack, Palette and the model the way the bot does: through the proxy
  const dispatcher =
    options.fetch === undefined && proxyInUse(config.proxy)
      ? proxyDispatcher(config.proxy)
      : undefined;
  try {
    return await checkAll(config, options, {
      fetch: options.fetch ?? (dispatcher ? fetchThrough(dispatcher) : fetch),
      clock: options.clock,
      timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
    });
  } finally {
    await dispatcher?.close();
  }
}

async function checkAll(
  config: Config,
  options: DoctorOptions,
  probe: Probe,
): Promise<DoctorReport> {
  const lines: CheckLine[] = [...configLines(config, options.env)];
  const [store, palette, assistant] = await Promise.all([
    bounded(probe, "the store", () =>
      inspectStore(config.stateDb, { now: probe.clock.now(), connectTimeoutMs: probe.timeoutMs }),
    ),
    paletteChecks(config, probe),
    assistantCheck(config.assistant, probe),
  ]);
  const slack = await slackChecks(
    config.slack!,
    store.ok ? store.value.channels : undefined,
    probe,
  );
  lines.push(
    ...slack.lines,
    ...palette.lines,
    assistant,
    ...storeLines(config, store, probe.clock.now()),
  );
  const httpMode = config.slack?.mode === "http";
  lines.push(
    skewLine("clock.slack", "Slack", slack.date, { httpMode }),
    skewLine("clock.palette", "Palette", palette.date, { httpMode }),
  );
  const safe = redact(lines, secretsOf(config));
  return { lines: safe, exitCode: verdictOf(safe).exitCode };
}

/** The verb: runs the checks and prints the table; returns the exit code. */
export async function doctorCli(
  options: DoctorOptions & { write: (text: string) => void; tty: boolean },
): Promise<number> {
  const report = await runDoctor(options);
  options.write(renderDoctor(report.lines, { tty: options.tty }));
  return report.exitCode;
}

/** What the configuration amounts to, and what in it is odd though it parses. Pure. */
export function configLines(config: Config, env: Record<string, string | undefined>): CheckLine[] {
  const slack = config.slack!;
  const store =
    config.stateDb.kind === "postgres" ? "PostgreSQL" : `SQLite (${config.stateDb.path})`;
  const projects =
    config.palette.projects.length > 0
      ? `${config.palette.projects.length} project${config.palette.projects.length === 1 ? "" : "s"} watched`
      : "the whole tenant watched";
  const lines: CheckLine[] = [
    {
      check: "config",
      status: "pass",
      result: `parsed: ${slack.mode === "socket" ? "Socket Mode" : "HTTP mode"}, store ${store}, ${projects}, IDENTITY=${config.identity.mode}`,
    },
    ...quotedValueLines(env),
  ];
  // the prefix of the token inside any quotes: the quotes have their own line above
  const tokenShape = (variable: string, prefix: string, value: string | undefined) => {
    if (value !== undefined && !unquoted(value).startsWith(prefix)) {
      lines.push({
        check: "config",
        status: "warn",
        result: `${variable} does not start with ${prefix}`,
        fix: `${variable} wants the ${prefix === "xoxb-" ? "Bot User OAuth Token (OAuth & Permissions)" : "app-level token with connections:write (Basic Information)"}`,
      });
    }
  };
  lines.push(proxyLine(config));
  tokenShape("SLACK_BOT_TOKEN", "xoxb-", slack.botToken.reveal());
  tokenShape("SLACK_APP_TOKEN", "xapp-", slack.appToken?.reveal());
  if (env.STATE_DB?.trim() && env.DATABASE_URL?.trim()) {
    lines.push({
      check: "config",
      status: "warn",
      result: "both STATE_DB and DATABASE_URL are set: STATE_DB is the store",
      fix: "set only one of them (DATABASE_URL for PostgreSQL)",
    });
  }
  return lines;
}

/** Which proxy the bot's HTTP clients go through: host and port only, never a user or password. */
export function proxyLine(config: Config): CheckLine {
  const proxy = config.proxy ?? NO_PROXY_CONFIG;
  const described = describeProxy(proxy);
  const ranges = proxyInUse(proxy) ? noProxyRanges(proxy.noProxy) : [];
  if (described !== undefined && ranges.length > 0) {
    return {
      check: "config.proxy",
      status: "warn",
      result: `Slack, Palette and the model: ${described}; NO_PROXY's ${ranges.join(", ")} exempts nothing (no CIDR ranges are matched)`,
      fix: "name the hosts or domains in NO_PROXY instead (.svc, .cluster.local, palette.internal)",
    };
  }
  return {
    check: "config.proxy",
    status: "pass",
    result:
      described === undefined
        ? "no proxy (HTTPS_PROXY, HTTP_PROXY unset): Slack, Palette and the model are reached directly"
        : `Slack, Palette and the model: ${described}`,
  };
}

function storeLines(config: Config, answer: Answer<StoreInspection>, now: number): CheckLine[] {
  const where =
    config.stateDb.kind === "postgres"
      ? "PostgreSQL (DATABASE_URL)"
      : `SQLite file ${config.stateDb.path}`;
  if (!answer.ok) {
    return [
      {
        check: "store.reach",
        status: "fail",
        result: `${where} cannot be read: ${answer.reason}`,
        fix:
          config.stateDb.kind === "postgres"
            ? "check DATABASE_URL's host, port, user and password, that the database runs, and that a NetworkPolicy lets the bot reach it"
            : "check that STATE_DB names a file on a writable volume (a read-only root filesystem needs a volume mounted there)",
      },
      skipped("store.migrations", "store.reach"),
      skipped("store.lease", "store.reach"),
    ];
  }
  const store = answer.value;
  const lines: CheckLine[] = [];
  if (!store.exists) {
    lines.push({
      check: "store.reach",
      status: "warn",
      result: `${where} does not exist yet: the bot creates it at start`,
      fix: "make sure its folder is on a persistent, writable volume, or the bot forgets its state at each restart",
    });
  } else {
    lines.push({ check: "store.reach", status: "pass", result: `${where} is reachable` });
  }
  const applied = new Set(store.applied);
  const pending = store.head.filter((id) => !applied.has(id));
  const unknown = store.applied.filter((id) => !store.head.includes(id));
  const last = store.head.at(-1);
  if (!store.exists) {
    lines.push({
      check: "store.migrations",
      status: "skip",
      result: "no store yet: the bot creates it with every migration",
    });
  } else if (unknown.length > 0) {
    lines.push({
      check: "store.migrations",
      status: "warn",
      result: `the store has migrations this version does not know (${unknown.join(", ")}): a newer version ran on it`,
      fix: "migrations only go forward: run the newer version, or restore the backup taken before the upgrade (docs/operations.md)",
    });
  } else if (pending.length > 0) {
    lines.push({
      check: "store.migrations",
      status: "warn",
      result: `${pending.length} of ${store.head.length} migrations to apply: the bot applies them when it starts`,
      fix:
        store.applied.length > 0 ? "back up the store before the first start of this version" : "",
    });
  } else {
    lines.push({
      check: "store.migrations",
      status: "pass",
      result: `at head (migration ${last})`,
    });
  }
  if (store.kind === "sqlite") {
    lines.push({
      check: "store.lease",
      status: "pass",
      result:
        "SQLite: one replica, which always leads (several replicas need PostgreSQL: DATABASE_URL)",
    });
  } else if (store.lease) {
    const seconds = Math.max(0, Math.round((store.lease.expiresAt - now) / 1000));
    lines.push({
      check: "store.lease",
      status: "pass",
      result: `the leader is ${store.lease.holder} (its lease runs ${seconds} s more)`,
    });
  } else {
    lines.push({
      check: "store.lease",
      status: "pass",
      result: "no replica leads now: the first to start takes the lease",
    });
  }
  return lines;
}

function secretsOf(config: Config): string[] {
  const credentials = config.palette.credentials;
  return [
    config.slack?.botToken,
    config.slack?.appToken,
    config.slack?.signingSecret,
    credentials.kind === "apiKey" ? credentials.apiKey : credentials.password,
    config.stateDb.kind === "postgres" ? config.stateDb.url : undefined,
    config.identity.keys?.current,
    config.identity.keys?.previous,
    config.assistant?.apiKey,
    config.proxy?.httpsProxy,
    config.proxy?.httpProxy,
  ]
    .map((secret) => secret?.reveal())
    .flatMap((value) => (value === undefined ? [] : [value, ...proxyPassword(value)]))
    .filter((value): value is string => value !== undefined && value.length >= 4);
}

/** a proxy URL's password on its own (a Palette error could echo a URL without the rest) */
function proxyPassword(value: string): string[] {
  try {
    const password = decodeURIComponent(new URL(value).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

/**
 * No secret reaches the output, whatever an answer from Slack, Palette or the database echoed
 * back: a doctor's output is pasted into tickets and chat.
 */
function redact(lines: CheckLine[], secrets: string[]): CheckLine[] {
  const scrub = (text: string) =>
    secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
  return lines.map((line) => ({
    ...line,
    result: scrub(line.result),
    ...(line.fix !== undefined ? { fix: scrub(line.fix) } : {}),
  }));
}
