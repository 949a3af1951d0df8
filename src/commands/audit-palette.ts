import { actingFor, personalRefusalLines } from "../identity/acting.ts";
import type { PaletteApi, Scope } from "../palette/api.ts";
import { describeForUser } from "../palette/errors.ts";
import type { PaletteAudit } from "../palette/history.ts";
import { errorReply } from "../verb-kit/reply.ts";
import { resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, MessageReply } from "../verb-kit/types.ts";

/**
 * Palette's side of `/palette audit` (issue 27): Palette's own audit log (GET /v1/audits, pages
 * of 50) for the export's filter, at most AUDIT_EXPORT_MAX entries. Under IDENTITY=strict the
 * reads use the person's own key, so Palette's `audit.list` right decides what they get;
 * otherwise the service account's (the export itself is audited as the person's).
 */

export const DEFAULT_AUDIT_EXPORT_MAX = 10_000;

export interface PaletteAuditFilter {
  since: number;
  until: number;
  /** a cluster's name or UID, looked up in the watched projects */
  cluster?: string;
  /** project:<uid> */
  projectUid?: string;
  /** @person: their linked Palette user's entries */
  slackUserId?: string;
  /** user:<email>: that Palette user's entries */
  email?: string;
}

/** Palette's audit answers pages of at most this many entries (GET /v1/audits) */
export const PALETTE_AUDIT_PAGE = 50;

/**
 * How long one export reads Palette's side at most (issue 31, item 17): `user:<email>` filters
 * on the bot's side, so matches can be sparse on a large tenant; past this the export goes out
 * with what was read and says it stopped. Slack's response_url lasts 30 minutes.
 */
export const PALETTE_AUDIT_DEADLINE_MS = 10 * 60_000;

/**
 * The calls one export may make: enough pages for AUDIT_EXPORT_MAX entries, one more per
 * project for its last short page. The bound counts calls, not matches, so an e-mail filter that
 * matches little cannot page a large tenant's whole audit (20,000 calls at 1,000,000 entries).
 */
export function paletteAuditCallBudget(max: number, scopes: number): number {
  return Math.ceil(max / PALETTE_AUDIT_PAGE) + scopes;
}

export type PaletteAuditRead =
  | {
      kind: "entries";
      /** how many entries went to the sink */
      count: number;
      /** stopped at a bound (entries, calls or time) before Palette's last page */
      stoppedEarly: boolean;
      calls: number;
      /** why Palette's side is empty or partial, in words for the requester (mrkdwn-free) */
      note?: string;
    }
  /** IDENTITY=strict and the person is not linked: nothing was read */
  | { kind: "refused"; reply: MessageReply };

/** where each entry goes as it is read (the export's spool), so no page is held past its turn */
export type PaletteAuditSink = (entry: PaletteAudit) => Promise<void>;

export async function readPaletteAudit(
  ctx: CommandContext,
  filter: PaletteAuditFilter,
  max: number,
  sink: PaletteAuditSink,
): Promise<PaletteAuditRead> {
  const strict = ctx.identity?.mode === "strict";
  const acting = strict
    ? await actingFor(ctx.requester, ctx.identity)
    : { kind: "service" as const };
  if (acting.kind === "refused") return { kind: "refused", reply: acting.reply };
  const palette: PaletteApi = acting.kind === "person" ? acting.palette : ctx.palette;
  // under strict a refusal is of the person's own key: told in their name (a 401 unlinks it)
  const theirs = async (error: unknown) =>
    acting.kind === "person" && ctx.identity
      ? await personalRefusalLines(
          error,
          acting.link,
          "read Palette's audit log",
          filter.projectUid,
          ctx.identity,
        )
      : undefined;
  try {
    return await readWith({ ...ctx, palette }, filter, max, sink, async (error) => {
      return (await theirs(error))?.plain ?? describeForUser(error);
    });
  } catch (error) {
    // the cluster's lookup (outside the paging's own catch) refused the person's key
    const lines = await theirs(error);
    if (lines) return { kind: "refused", reply: errorReply(lines.mrkdwn, lines.plain, lines.hint) };
    throw error;
  } finally {
    if (acting.kind === "person") await acting.palette.close();
  }
}

/**
 * The Palette user behind `@person`: their stored link, or under LINK_METHOD=email (where
 * nothing is stored) the Palette user with their Slack e-mail, as a minted key would find.
 */
async function paletteUserOf(ctx: CommandContext, slackUserId: string) {
  const link = await ctx.identity?.store.get(slackUserId);
  if (link) return link.paletteUserUid;
  const identity = ctx.identity;
  if (identity?.method !== "email" || !identity.emailOf || !identity.service) return undefined;
  const email = await identity.emailOf(slackUserId);
  if (!email) return undefined;
  return (await identity.service.findUserByEmail(email))?.uid;
}

async function readWith(
  ctx: CommandContext,
  filter: PaletteAuditFilter,
  max: number,
  sink: PaletteAuditSink,
  /** why Palette's audit could not be read, in words for the requester */
  describe: (error: unknown) => Promise<string> = async (error) => describeForUser(error),
): Promise<Extract<PaletteAuditRead, { kind: "entries" }>> {
  let scopes: Scope[] = filter.projectUid
    ? [{ projectUid: filter.projectUid }]
    : ctx.projects.length > 0
      ? ctx.projects.map((projectUid) => ({ projectUid }))
      : [{}];
  let resourceUid: string | undefined;
  let userUid: string | undefined;
  const empty = (note: string) => ({
    kind: "entries" as const,
    count: 0,
    stoppedEarly: false,
    calls: 0,
    note,
  });
  if (filter.cluster !== undefined) {
    const found = await resolveCluster(filter.cluster, scopes, ctx, (uid) => `audit ${uid}`);
    if (found.kind === "reply") {
      return empty(
        found.reason === "ambiguous"
          ? `more than one cluster is named ${filter.cluster}: give its UID for Palette's entries`
          : `Palette has no cluster ${filter.cluster} in the watched projects: only the bot's rows`,
      );
    }
    resourceUid = found.cluster.uid;
    const project = found.cluster.projectUid ?? found.scope.projectUid;
    scopes = [project ? { projectUid: project } : {}];
  }
  if (filter.slackUserId !== undefined) {
    userUid = await paletteUserOf(ctx, filter.slackUserId);
    if (!userUid) return empty("no Palette user is linked to that person: only the bot's rows");
  }
  const wantedEmail = filter.email?.toLowerCase();
  const budget = paletteAuditCallBudget(max, scopes.length);
  const deadline = ctx.clock.now() + PALETTE_AUDIT_DEADLINE_MS;
  let count = 0;
  let calls = 0;
  let stoppedEarly = false;
  let bound: string | undefined;
  try {
    for (const scope of scopes) {
      let next: string | undefined;
      for (;;) {
        if (count >= max) {
          stoppedEarly = true;
          break;
        }
        if (calls >= budget) {
          stoppedEarly = true;
          bound = `stopped after ${calls} pages of Palette's audit (the bound for AUDIT_EXPORT_MAX ${max}) before its end`;
          break;
        }
        if (ctx.clock.now() >= deadline) {
          stoppedEarly = true;
          bound = `stopped after ${PALETTE_AUDIT_DEADLINE_MS / 60_000} minutes of reading Palette's audit (${calls} pages) before its end`;
          break;
        }
        calls += 1;
        const page = await ctx.palette.listAudits(
          {
            ...(resourceUid ? { resourceUid } : {}),
            ...(scope.projectUid ? { projectUid: scope.projectUid } : {}),
            ...(userUid ? { userUid } : {}),
            startTime: filter.since,
            endTime: filter.until,
            ...(next ? { continue: next } : {}),
          },
          scope,
        );
        for (const entry of page.items) {
          if (wantedEmail && entry.spec?.actor?.user?.emailId?.toLowerCase() !== wantedEmail) {
            continue;
          }
          if (count < max) {
            await sink(entry);
            count += 1;
          } else stoppedEarly = true;
        }
        if (!page.continue || page.continue === next) break;
        next = page.continue;
      }
      if (stoppedEarly) break;
    }
  } catch (error) {
    return {
      kind: "entries",
      count,
      stoppedEarly: true,
      calls,
      note: `Palette's audit could not be read to the end: ${await describe(error)}`,
    };
  }
  return { kind: "entries", count, stoppedEarly, calls, ...(bound ? { note: bound } : {}) };
}

/** A Palette entry as a row of the export (the columns of AUDIT_CSV_HEADER after `source`). */
export function paletteAuditCells(entry: PaletteAudit): Array<string | number | undefined> {
  const spec = entry.spec;
  const actor = spec?.actor;
  const user = actor?.user;
  const kind = (actor?.actorType ?? "").toLowerCase();
  const who =
    kind === "service"
      ? actor?.serviceName || "service"
      : kind === "system"
        ? "Palette"
        : user?.emailId ||
          [user?.firstName, user?.lastName].filter(Boolean).join(" ") ||
          user?.uid ||
          "";
  const resource = spec?.resource;
  const isCluster = (resource?.kind ?? "").toLowerCase() === "spectrocluster";
  return [
    entry.metadata?.creationTimestamp ?? undefined,
    spec?.actionType ?? undefined,
    undefined,
    undefined,
    who,
    [resource?.kind, resource?.name].filter(Boolean).join(" ") || undefined,
    undefined,
    isCluster ? (resource?.uid ?? undefined) : undefined,
    actor?.project?.uid ?? undefined,
    undefined,
    undefined,
    user?.uid ?? undefined,
    spec?.actionMsg || spec?.contentMsg || undefined,
  ];
}
