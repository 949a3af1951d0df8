import type { PaletteAudit } from "../palette/history.ts";
import type { AuditCursor, AuditExportQuery, AuditRecord } from "../store/audit.ts";
import { errorReply, messageReply, usageReply } from "../verb-kit/reply.ts";
import type { AuditRoomAnswer, CommandContext, FileReply, VerbSpec } from "../verb-kit/types.ts";
import { type CsvValue, csvRecord, toCsv } from "../views/csv.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { DEFAULT_AUDIT_EXPORT_MAX, paletteAuditCells, readPaletteAudit } from "./audit-palette.ts";
import { auditExportRoom, estimateExportBytes, MOST_EXPORTS_AT_ONCE } from "./audit-room.ts";
import { AuditSpool, type TimedRecord } from "./audit-spool.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** without `since`: the last week */
const DEFAULT_SINCE_MS = 7 * DAY_MS;

/**
 * an export holds at most this many of the bot's rows (the oldest in its range, so "ask again
 * with since <the last>" goes on where it stopped); the notice and the file say when it was cut
 */
export const MAX_EXPORT_ROWS = 50_000;

/** the export's columns, in order (docs/security.md lists them) */
export const AUDIT_CSV_HEADER = [
  /** `bot` (this bot's audit table) or `palette` (Palette's audit log, GET /v1/audits) */
  "source",
  "at",
  "action",
  "step",
  "outcome",
  "user",
  "target",
  "change_id",
  "cluster_uid",
  "project_uid",
  "requester",
  "approver",
  "palette_user",
  "detail",
] as const;

export type AuditFilter =
  | {
      kind: "ok";
      since: number;
      /** `until <when>`; default now */
      until?: number;
      cluster?: string;
      userId?: string;
      /** `user:<email>`: a Palette user's entries */
      email?: string;
    }
  | { kind: "problem"; problem: string };

/**
 * `[cluster|@user] [since 24h|7d|<date>]` → what to export. A person is a Slack mention
 * (`<@U…|name>`, as Slack sends a picked name) or a user ID; a date is UTC.
 */
export function parseAuditFilter(args: readonly string[], now: number): AuditFilter {
  const words = [...args];
  let since = now - DEFAULT_SINCE_MS;
  const at = words.findIndex((word) => word.toLowerCase() === "since");
  if (at !== -1) {
    const value = words[at + 1];
    if (value === undefined) {
      return {
        kind: "problem",
        problem: "Say since when, e.g. `since 24h`, `since 7d` or `since 2026-11-01`.",
      };
    }
    const parsed = parseSince(value, now);
    if (parsed === undefined) {
      return {
        kind: "problem",
        problem: `\`${escapeMrkdwn(value.slice(0, 40))}\` is not a time I know: say \`24h\`, \`7d\`, \`2w\` or a date like \`2026-11-01\`.`,
      };
    }
    if (parsed > now) return { kind: "problem", problem: "`since` is in the future." };
    since = parsed;
    words.splice(at, 2);
  }
  let until: number | undefined;
  const end = words.findIndex((word) => word.toLowerCase() === "until");
  if (end !== -1) {
    const value = words[end + 1];
    const parsed = value === undefined ? undefined : parseSince(value, now);
    if (parsed === undefined) {
      return {
        kind: "problem",
        problem: "Say until when, e.g. `until 1d` (a day ago) or `until 2026-11-20`.",
      };
    }
    if (parsed < since) return { kind: "problem", problem: "`until` is before `since`." };
    until = parsed;
    words.splice(end, 2);
  }
  const range = { since, ...(until !== undefined ? { until } : {}) };
  if (words.length > 1) {
    return { kind: "problem", problem: "One cluster or one person at a time." };
  }
  const subject = words[0];
  if (subject === undefined) return { kind: "ok", ...range };
  const email = /^user:(.+@.+)$/i.exec(subject);
  if (email) return { kind: "ok", ...range, email: email[1]! };
  const mention = /^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$/.exec(subject);
  const id = /^@?([UW][A-Z0-9]{5,})$/.exec(subject);
  if (mention || id) return { kind: "ok", ...range, userId: (mention ?? id)![1]! };
  if (subject.startsWith("@") || subject.startsWith("<")) {
    return {
      kind: "problem",
      problem:
        "Name the person by picking them from Slack's @ list (or by their user ID, e.g. `@U0123ABCD`).",
    };
  }
  return { kind: "ok", ...range, cluster: subject };
}

/** `24h`, `90m`, `7d`, `2w` back from now, or a UTC date (`2026-11-01`) or ISO time */
export function parseSince(value: string, now: number): number | undefined {
  const relative = /^(\d{1,5})([mhdw])$/i.exec(value);
  if (relative) {
    const unit = { m: 60_000, h: HOUR_MS, d: DAY_MS, w: 7 * DAY_MS }[
      relative[2]!.toLowerCase() as "m" | "h" | "d" | "w"
    ];
    return now - Number(relative[1]) * unit;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const time = Date.parse(`${value}T00:00:00Z`);
    return Number.isNaN(time) ? undefined : time;
  }
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/.test(value)) {
    const time = Date.parse(value);
    return Number.isNaN(time) ? undefined : time;
  }
  return undefined;
}

/**
 * The rows as the CSV file (src/views/csv.ts escapes and quotes every cell): the bot's rows and
 * Palette's entries in one list, oldest first, each with its `source`.
 */
export function auditCsv(
  rows: readonly AuditRecord[],
  palette: readonly PaletteAudit[] = [],
): string {
  const lines = [
    ...rows.map((row) => botCells(row)),
    ...palette.map((entry) => ["palette", ...paletteAuditCells(entry)]),
  ]
    .map((cells, index) => ({ cells, index, at: timeOf(cells[1]) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map(({ cells }) => cells);
  return toCsv(AUDIT_CSV_HEADER, lines);
}

function botCells(row: AuditRecord): Array<string | number | undefined> {
  return [
    "bot",
    row.at,
    row.action,
    row.step,
    row.outcome,
    row.userId,
    row.target,
    row.changeId,
    row.clusterUid,
    row.projectUid,
    row.requester,
    row.approver,
    row.paletteUser,
    row.detail,
  ];
}

/**
 * `/palette audit`: the bot's audit rows as a CSV file in the requester's DM, for the people on
 * ALLOW_AUDIT. The permission goes first: anyone else is refused and nothing is read. Every
 * export is itself audited (who, which filter, how many rows).
 */
export const auditVerb: VerbSpec = {
  name: "audit",
  usage: "audit [cluster|project:<uid>|@person|user:<email>] [since 24h|7d|<date>] [until <when>]",
  summary:
    "sends you the bot's audit (requests, refusals, approvals, Palette's answers, ends) and Palette's own audit log as one CSV file in a direct message, if you are allowed",
  examples: ["/palette audit since 7d", "/palette audit prod-aws-01 since 24h"],
  run: async (command, ctx) => {
    const userId = ctx.requester.userId;
    if (!(await ctx.policy.allows(userId, "audit"))) {
      await exportTrail(ctx, command.args.join(" ").slice(0, 200), "denied", {});
      const hint = ctx.policy.grantHint("audit");
      return errorReply(
        ":no_entry: You are not allowed to export the audit.",
        "You are not allowed to export the audit.",
        hint ? escapeMrkdwn(hint) : undefined,
      );
    }
    const filter = parseAuditFilter(command.args, ctx.clock.now());
    if (filter.kind === "problem") return usageReply(auditVerb, filter.problem);
    const since = new Date(filter.since).toISOString();
    const now = ctx.clock.now();
    const until = filter.until ?? now;
    const untilIso = new Date(until).toISOString();
    const max = ctx.auditExportMax ?? DEFAULT_AUDIT_EXPORT_MAX;
    const room = await (ctx.auditExportRoom ?? auditExportRoom).claim(
      estimateExportBytes(max, MAX_EXPORT_ROWS),
    );
    if (room.kind !== "granted") {
      await exportTrail(ctx, command.args.join(" ").slice(0, 200), "denied", { reason: room.kind });
      return noRoomReply(room);
    }
    // the export's own room is its bound from here: the command slots stay for the other verbs
    ctx.leaveCommandSlot?.();
    let spool: AuditSpool;
    try {
      spool = await AuditSpool.create();
    } catch (error) {
      room.release();
      throw error;
    }
    // the files go first, then the room: whoever delivers the file calls this once
    const dispose = async () => {
      try {
        await spool.dispose();
      } finally {
        room.release();
      }
    };
    try {
      // Palette's side first: under IDENTITY=strict an unlinked person is refused before anything
      const palette = await readPaletteAudit(
        ctx,
        {
          since: filter.since,
          until,
          ...(filter.cluster !== undefined ? { cluster: filter.cluster } : {}),
          ...(command.project !== undefined ? { projectUid: command.project } : {}),
          ...(filter.userId !== undefined ? { slackUserId: filter.userId } : {}),
          ...(filter.email !== undefined ? { email: filter.email } : {}),
        },
        max,
        (entry) => {
          const cells = ["palette", ...paletteAuditCells(entry)];
          return spool.addPalette({ at: timeOf(cells[1]), record: csvRecord(cells) });
        },
      );
      if (palette.kind === "refused") {
        await dispose();
        return palette.reply;
      }
      const bot: BotRead = { count: 0, stoppedEarly: false };
      const query: AuditExportQuery = {
        since,
        until: untilIso,
        ...(filter.cluster !== undefined ? { cluster: filter.cluster } : {}),
        ...(filter.userId !== undefined ? { userId: filter.userId } : {}),
        ...(command.project !== undefined ? { projectUid: command.project } : {}),
        ...(filter.email !== undefined ? { paletteUser: filter.email } : {}),
      };
      const botStop = () =>
        `Stopped early at ${bot.count} rows of this bot (at most ${MAX_EXPORT_ROWS} in one export); the last was at ${bot.lastAt}: ask again with since ${bot.lastAt} for the rest.`;
      const paletteStop = () =>
        `Palette's entries stopped early at ${palette.count} (AUDIT_EXPORT_MAX is ${max})${palette.note ? `: ${palette.note}` : ""}.`;
      const file = await spool.finish(
        csvRecord(AUDIT_CSV_HEADER),
        botRecords(ctx, query, bot),
        () => [
          ...(bot.stoppedEarly ? [noteRecord(now, botStop())] : []),
          ...(palette.stoppedEarly ? [noteRecord(now, paletteStop())] : []),
        ],
      );
      const about =
        filter.cluster ??
        (filter.userId
          ? `<@${filter.userId}>`
          : filter.email
            ? `user:${filter.email}`
            : command.project
              ? `project:${command.project}`
              : "everything");
      await exportTrail(ctx, about, "granted", {
        since,
        until: untilIso,
        rows: bot.count,
        ...(bot.stoppedEarly ? { stoppedEarly: true } : {}),
        paletteEntries: palette.count,
        paletteCalls: palette.calls,
        ...(palette.stoppedEarly ? { paletteStoppedEarly: true } : {}),
      });
      const day = since.slice(0, 10);
      const fileName = `palette-audit-${filter.cluster ? `${safeName(filter.cluster)}-` : filter.userId ? `${filter.userId}-` : ""}since-${day}.csv`;
      const shown = filter.cluster
        ? ` about ${code(filter.cluster)}`
        : filter.userId
          ? ` about <@${filter.userId}>`
          : "";
      const reply: FileReply = {
        kind: "file",
        fileName,
        title: `Audit since ${day}`,
        content: { ...file, dispose },
        auditAs: "audit-export",
        notice: messageReply(
          {
            screen: "notice",
            data: {
              mrkdwn: `:lock: ${bot.count} audit row${bot.count === 1 ? "" : "s"} of this bot and ${palette.count} of Palette's${shown} since ${escapeMrkdwn(since)} were sent to your DMs as ${code(fileName)} (column \`source\`).`,
              hint: [
                palette.stoppedEarly
                  ? `${escapeMrkdwn(paletteStop())} Narrow it with a cluster, a project, a person or \`since\`/\`until\`.`
                  : palette.note
                    ? `Palette's side: ${escapeMrkdwn(palette.note)}.`
                    : undefined,
                bot.stoppedEarly
                  ? escapeMrkdwn(botStop())
                  : "Each change has one row per step: request, refused, approved, rejected, expired, answer, end.",
              ]
                .filter(Boolean)
                .join(" "),
            },
          },
          `${bot.count} audit rows were sent to your DMs.${bot.stoppedEarly || palette.stoppedEarly ? " The export stopped early." : ""}`,
        ),
      };
      return reply;
    } catch (error) {
      await dispose();
      if (isDiskFull(error)) {
        return errorReply(
          "The export stopped: the bot's temporary disk filled up while writing it. Nothing was sent and what was written is deleted. Try again later, or narrow it with a cluster, a project, a person or `since`/`until`.",
          "The export stopped: the bot's temporary disk filled up. Nothing was sent.",
        );
      }
      throw error;
    }
  },
};

/** what a person is told when the export cannot start: another is running, or the disk is short */
function noRoomReply(room: Exclude<AuditRoomAnswer, { kind: "granted" }>) {
  if (room.kind === "busy") {
    return errorReply(
      `An audit export is already running (at most ${MOST_EXPORTS_AT_ONCE} at a time on this bot); try again in a few minutes.`,
      "An audit export is already running; try again in a few minutes.",
    );
  }
  const mb = (bytes: number) => Math.ceil(bytes / 1_000_000);
  return errorReply(
    `The bot's temporary disk has no room for this export: it may take up to ${mb(room.neededBytes)} MB and ${mb(room.freeBytes)} MB are free. Try again when other exports are done; if it stays so, whoever runs the bot can lower AUDIT_EXPORT_MAX or give the temp volume more room.`,
    "The bot's temporary disk has no room for this export.",
  );
}

/** a write refused for want of space: the volume is full (ENOSPC) or the quota spent (EDQUOT) */
function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

/** rows read from the store per query: one page's records in memory at a time */
export const AUDIT_PAGE_ROWS = 1_000;

interface BotRead {
  count: number;
  stoppedEarly: boolean;
  lastAt?: string;
}

/** the bot's rows as records, page after page, oldest first, at most MAX_EXPORT_ROWS */
async function* botRecords(
  ctx: CommandContext,
  query: AuditExportQuery,
  read: BotRead,
): AsyncGenerator<TimedRecord> {
  let cursor: AuditCursor | undefined;
  for (;;) {
    const wanted = Math.min(AUDIT_PAGE_ROWS, MAX_EXPORT_ROWS - read.count);
    if (wanted === 0) {
      // at the bound: one more row means the export was cut
      read.stoppedEarly = (await ctx.audit.page(query, cursor, 1)).length > 0;
      return;
    }
    const page = await ctx.audit.page(query, cursor, wanted);
    for (const { record } of page) {
      read.count += 1;
      read.lastAt = record.at;
      yield { at: timeOf(record.at), record: csvRecord(botCells(record)) };
    }
    if (page.length < wanted) return;
    cursor = page.at(-1)!.cursor;
  }
}

/** a line of the file that is not a row: `source` export, the note in `detail` */
function noteRecord(now: number, text: string): string {
  const cells: CsvValue[] = AUDIT_CSV_HEADER.map(() => undefined);
  cells[0] = "export";
  cells[1] = new Date(now).toISOString();
  cells[2] = "stopped-early";
  cells[cells.length - 1] = text;
  return csvRecord(cells);
}

function timeOf(at: CsvValue): number {
  const parsed = Date.parse(String(at ?? ""));
  return Number.isNaN(parsed) ? 0 : parsed;
}

async function exportTrail(
  ctx: CommandContext,
  target: string,
  outcome: "granted" | "denied",
  detail: Record<string, unknown>,
): Promise<void> {
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action: "audit-export",
    target: target || "everything",
    outcome,
    ...(Object.keys(detail).length > 0 ? { detail: JSON.stringify(detail) } : {}),
  });
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60);
}
