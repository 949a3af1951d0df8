import type { PaletteApi, Scope } from "../palette/api.ts";
import type { PaletteEdgeApi } from "../palette/edge-api.ts";
import { describeForUser } from "../palette/errors.ts";
import { readClusterRecord } from "../store/cluster-record.ts";
import type { SqlExecutor } from "../store/sql.ts";
import {
  auditEntry,
  botEntries,
  eventEntry,
  mergeTimeline,
  type TimelineEntry,
} from "./timeline.ts";

/**
 * The reads behind `/palette why`: Palette's audit of the cluster (GET /v1/audits narrowed to the
 * cluster and the range, pages of 50), its events (pages of 50, newest first, until one reaches
 * past the range's start) and the bot's own record. The two Palette streams run side by side;
 * each stops at `maxPages` and says so. A stream that fails is named in the answer, the rest
 * still answers.
 */

export const WHY_MAX_PAGES = 20;

export interface WhyReads {
  palette: Pick<PaletteApi, "listAudits" | "clusterEventsPage">;
  /** an edge host's events (`why <edge host>`, issue 39); needed only for an edge host's story */
  edgeHostEventsPage?: PaletteEdgeApi["edgeHostEventsPage"];
  db: SqlExecutor;
  /**
   * IDENTITY=strict: Palette's refusal of the person's own key in their words (a 401 unlinks
   * it), for a stream `palette` could not read; undefined when it is not such a refusal
   */
  refusal?: (error: unknown, source: "audit" | "events") => Promise<string | undefined>;
}

export interface Story {
  entries: TimelineEntry[];
  /** Palette calls made */
  calls: number;
  /** a stream stopped at its page bound before the range's start */
  stoppedEarly: Array<"audit" | "events">;
  /** streams that could not be read, in words fit for the reader */
  unavailable: Array<{ source: "audit" | "events"; why: string }>;
}

/**
 * What the story is of: a cluster (its events, and the bot's record of its launches and changes)
 * or an edge host (its events; the bot's record of a host is its health, told by src/why/edge-host-story.ts).
 */
export type StoryKind = "cluster" | "edgehost";

export async function gatherStory(
  reads: WhyReads,
  cluster: { uid: string; projectUid?: string },
  range: { sinceMs: number; untilMs: number },
  maxPages = WHY_MAX_PAGES,
  kind: StoryKind = "cluster",
): Promise<Story> {
  const scope: Scope = cluster.projectUid ? { projectUid: cluster.projectUid } : {};
  const story: Story = { entries: [], calls: 0, stoppedEarly: [], unavailable: [] };
  const inRange = (entry: TimelineEntry | undefined): entry is TimelineEntry =>
    entry !== undefined && entry.at >= range.sinceMs && entry.at <= range.untilMs;

  const audits = async (): Promise<TimelineEntry[]> => {
    const out: TimelineEntry[] = [];
    let next: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= maxPages) {
        story.stoppedEarly.push("audit");
        break;
      }
      story.calls += 1;
      const answer = await reads.palette.listAudits(
        {
          resourceUid: cluster.uid,
          ...(cluster.projectUid ? { projectUid: cluster.projectUid } : {}),
          startTime: range.sinceMs,
          endTime: range.untilMs,
          ...(next ? { continue: next } : {}),
        },
        scope,
      );
      out.push(...answer.items.map(auditEntry).filter(inRange));
      if (!answer.continue || answer.continue === next) break;
      next = answer.continue;
    }
    return out;
  };

  const eventsPage = (next: string | undefined) => {
    if (kind === "cluster") {
      story.calls += 1;
      return reads.palette.clusterEventsPage(cluster.uid, scope, next);
    }
    // Palette serves a host's events only in its project's scope: without one it is a 404
    if (!reads.edgeHostEventsPage || !cluster.projectUid) throw new EventsNeedProject();
    story.calls += 1;
    return reads.edgeHostEventsPage(cluster.uid, scope, next);
  };

  const events = async (): Promise<TimelineEntry[]> => {
    const out: TimelineEntry[] = [];
    let next: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= maxPages) {
        story.stoppedEarly.push("events");
        break;
      }
      const answer = await eventsPage(next);
      const entries = answer.items.map(eventEntry).filter((e) => e !== undefined);
      out.push(...entries.filter(inRange));
      // newest first: a page that reaches past the start is the last one needed
      const oldest = Math.min(...entries.map((entry) => entry.at));
      if (entries.length > 0 && oldest < range.sinceMs) break;
      if (!answer.continue || answer.continue === next) break;
      next = answer.continue;
    }
    return out;
  };

  const settle = async (
    source: "audit" | "events",
    read: () => Promise<TimelineEntry[]>,
  ): Promise<TimelineEntry[]> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof EventsNeedProject) {
        story.unavailable.push({ source, why: error.message });
        return [];
      }
      const theirs = await reads.refusal?.(error, source).catch(() => undefined);
      story.unavailable.push({ source, why: theirs ?? describeForUser(error) });
      return [];
    }
  };

  const [fromAudit, fromEvents, record] = await Promise.all([
    settle("audit", audits),
    settle("events", events),
    kind === "cluster" ? readClusterRecord(reads.db, cluster, range) : undefined,
  ]);
  story.entries = mergeTimeline(fromAudit, fromEvents, record ? botEntries(record) : []);
  return story;
}

/** An edge host whose project is unknown: Palette would not serve its events, so none are asked. */
class EventsNeedProject extends Error {
  constructor() {
    super("Palette serves an edge host's events only in its project, and its project is not known");
  }
}
