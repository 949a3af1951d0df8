import { edgeHostCause, edgeRecordEntries } from "../model/edge-host-cause.ts";
import type { EdgeHostSummary } from "../palette/edge-reads.ts";
import { describeForUser } from "../palette/errors.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import {
  type EdgeReads,
  edgeReadsOf,
  type Found,
  findEdgeHost,
  sameNameReply,
} from "../verb-kit/edge-host-lookup.ts";
import { messageReply, notice, readScopes, shareVisibility } from "../verb-kit/reply.ts";
import type { CommandContext, ParsedCommand, Reply } from "../verb-kit/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeArg, scopeText } from "../views/scope.ts";
import type { Unavailable } from "../views/why.ts";
import { type WhyEdgeData, whyEdgeText } from "../views/why-edge.ts";
import { gatherStory, type WhyReads } from "./gather.ts";
import { mergeTimeline, type TimelineEntry, warningsFirst } from "./timeline.ts";

/**
 * `why <edge host>` (issue 39, item 4): asked when no cluster answers to the name, the edge
 * hosts of the same projects are looked up (by UID, else by Palette's exact-name filter), and the
 * host's story is told: its events (`GET /v1/events/components/edgehost/{uid}`, in its project's
 * scope, as Palette requires), Palette's audit of it (`GET /v1/audits?resourceUid=`), its
 * cluster's story (`status.inUseClustersRef`: audit, events, the bot's record) and the bot's own
 * record of the host's health (src/store/edge-hosts.ts), with a likely-cause line on top. Reads
 * run as the person under IDENTITY=strict, because `ctx.palette` is theirs then.
 */

export interface EdgeWhyOptions {
  since: { sinceMs: number; label: string };
  untilMs: number;
  page: number;
  pageSize: number;
  eventLimit: number;
  /** IDENTITY=strict: a refusal of the person's key in their words, for `action` */
  refusal?: (action: string, projectUid: string | undefined) => WhyReads["refusal"] | undefined;
}

/**
 * The answer for `ref` as an edge host; undefined when the bot cannot read edge hosts at all
 * (the caller then answers as for an unknown cluster).
 */
export async function whyEdgeHost(
  ref: string,
  command: ParsedCommand,
  ctx: CommandContext,
  options: EdgeWhyOptions,
): Promise<Reply | undefined> {
  const edge = edgeReadsOf(ctx.palette);
  if (!edge) return undefined;
  const scopes = readScopes(command, ctx);
  const where =
    scopes.length === 1 ? scopeText(scopes[0]!) : `the ${scopes.length} watched projects`;
  let found: Found;
  try {
    found = await findEdgeHost(ref, scopes, edge);
  } catch (error) {
    const why = describeForUser(error);
    return messageReply(
      notice(
        `:mag: No cluster named ${code(ref)} in ${where}, and its edge hosts could not be searched: ${escapeMrkdwn(why)}`,
      ),
      `No cluster named ${ref}; edge hosts could not be searched: ${why}`,
    );
  }
  if (found.kind === "none") {
    return messageReply(
      notice(
        `:mag: No cluster or edge host named ${code(ref)} in ${where}. Try \`/palette clusters\`.`,
      ),
      `No cluster or edge host named ${ref}`,
    );
  }
  if (found.kind === "many") return sameNameReply(ref, found.hosts);
  return tellStory(found.host, edge, command, ctx, options);
}

async function tellStory(
  host: EdgeHostSummary,
  edge: EdgeReads,
  command: ParsedCommand,
  ctx: CommandContext,
  options: EdgeWhyOptions,
): Promise<Reply> {
  const range = { sinceMs: options.since.sinceMs, untilMs: options.untilMs };
  const projectUid = host.projectUid;
  const cluster = host.clusters[0];
  const hostRefusal = options.refusal?.("read this edge host's events", projectUid);
  const clusterRefusal = options.refusal?.("read this cluster's events", projectUid);
  const [hostStory, clusterStory, records, timeZone] = await Promise.all([
    gatherStory(
      {
        palette: ctx.palette,
        edgeHostEventsPage: (uid, scope, next) => edge.edgeHostEventsPage(uid, scope, next),
        db: ctx.db,
        ...(hostRefusal ? { refusal: hostRefusal } : {}),
      },
      { uid: host.uid, ...(projectUid ? { projectUid } : {}) },
      range,
      undefined,
      "edgehost",
    ),
    cluster
      ? gatherStory(
          {
            palette: ctx.palette,
            db: ctx.db,
            ...(clusterRefusal ? { refusal: clusterRefusal } : {}),
          },
          { uid: cluster.uid, ...(projectUid ? { projectUid } : {}) },
          range,
        )
      : undefined,
    new EdgeHostStore(ctx.db).get([host.uid]),
    ctx.readerTimeZone ? ctx.readerTimeZone(ctx.requester.userId).catch(() => "UTC") : "UTC",
  ]);
  const record = records.get(host.uid);
  const clusterEntries: TimelineEntry[] = (clusterStory?.entries ?? []).map((entry) => ({
    ...entry,
    subject: cluster?.name ?? "",
  }));
  const cause = edgeHostCause({
    now: {
      ...(host.state ? { state: host.state } : {}),
      ...(host.health ? { health: host.health } : {}),
      ...(host.healthMessage ? { message: host.healthMessage } : {}),
    },
    record,
    hostEntries: hostStory.entries,
    ...(cluster ? { cluster: { name: cluster.name, entries: clusterStory?.entries ?? [] } } : {}),
  });
  const story = mergeTimeline(hostStory.entries, clusterEntries, edgeRecordEntries(record, range));
  const { kept, hiddenNormal } = warningsFirst(story, options.eventLimit);
  const pages = Math.max(1, Math.ceil(kept.length / options.pageSize));
  const shownPage = Math.min(options.page, pages);
  const unavailable: Unavailable[] = [
    ...hostStory.unavailable,
    ...(clusterStory?.unavailable ?? []).map((missing) => ({ ...missing, of: cluster?.name })),
  ];
  const data: WhyEdgeData = {
    host: {
      uid: host.uid,
      name: host.name,
      ...(projectUid ? { projectUid } : {}),
      ...(host.state ? { state: host.state } : {}),
      ...(host.health ? { health: host.health } : {}),
      ...(host.agentVersion ? { agentVersion: host.agentVersion } : {}),
      ...(cluster ? { cluster: cluster.name } : {}),
    },
    rangeLabel: options.since.label,
    sinceMs: range.sinceMs,
    untilMs: range.untilMs,
    timeZone,
    cause,
    entries: kept.slice((shownPage - 1) * options.pageSize, shownPage * options.pageSize),
    page: shownPage,
    pages,
    total: kept.length,
    hiddenNormal,
    stoppedEarly: [...new Set([...hostStory.stoppedEarly, ...(clusterStory?.stoppedEarly ?? [])])],
    unavailable,
    calls: hostStory.calls + (clusterStory?.calls ?? 0),
    ...(shownPage < pages
      ? {
          moreCommand: `why ${host.uid}${scopeArg(projectUid)} since ${options.since.label} --page=${shownPage + 1} --until=${range.untilMs}`,
        }
      : {}),
  };
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action: "read",
    target: `why edge host ${host.name} (${host.uid})`.slice(0, 200),
    outcome: "granted",
  });
  return messageReply({ screen: "whyEdge", data }, whyEdgeText(data), shareVisibility(command));
}
