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

export type PaletteAuditRead =
  | {
      kind: "entries";
      entries: PaletteAudit[];
      /** stopped at the maximum before Palette's last page */
      stoppedEarly: boolean;
      calls: number;
      /** why Palette's side is empty or partial, in words for the requester (mrkdwn-free) */
      note?: string;
    }
  /** IDENTITY=strict and the person is not linked: nothing was read */
  | { kind: "refused"; reply: MessageReply };

export async function readPaletteAudit(
  ctx: CommandContext,
  filter: PaletteAuditFilter,
  max: number,
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
    return await readWith({ ...ctx, palette }, filter, max, async (error) => {
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

async function readWith(
  ctx: CommandContext,
  filter: PaletteAuditFilter,
  max: number,
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
    entries: [],
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
    const link = await ctx.identity?.store.get(filter.slackUserId);
    if (!link) return empty("no Palette user is linked to that person: only the bot's rows");
    userUid = link.paletteUserUid;
  }
  const wantedEmail = filter.email?.toLowerCase();
  const entries: PaletteAudit[] = [];
  let calls = 0;
  let stoppedEarly = false;
  try {
    for (const scope of scopes) {
      let next: string | undefined;
      for (;;) {
        if (entries.length >= max) {
          stoppedEarly = true;
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
          if (entries.length < max) entries.push(entry);
          else stoppedEarly = true;
        }
        if (!page.continue || page.continue === next) break;
        next = page.continue;
      }
      if (stoppedEarly) break;
    }
  } catch (error) {
    return {
      kind: "entries",
      entries,
      stoppedEarly: true,
      calls,
      note: `Palette's audit could not be read to the end: ${await describe(error)}`,
    };
  }
  return { kind: "entries", entries, stoppedEarly, calls };
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
