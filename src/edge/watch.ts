import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { PaletteError } from "../palette/errors.ts";
import { FencedOut } from "../store/lease.ts";
import { OutboxStore } from "../store/outbox.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { type EdgeCycleInput, runEdgeCycle } from "./cycle.ts";
import { edgeDrafts } from "./tell.ts";

/**
 * The edge fleet's part of a poll cycle (issue 39), given to the poller (which cannot know
 * src/edge/) and run right after the clusters' commit, in the same turn: the same rate lanes
 * (the poller marks the work routine or bulk), the same leader's fence, a reconciliation's full
 * listing when the clusters' cycle is one. Each scope's hosts are read, judged and recorded with
 * their outbox rows in one transaction; a scope Palette refuses is left as it was (the next cycle
 * tries again), so the clusters' news never waits on the edge's.
 */

export interface EdgeWatchDeps {
  palette: EdgeCycleInput["palette"];
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** the poll scopes: PALETTE_PROJECTS, or [""] for the tenant */
  scopes: readonly string[];
  siteTag: string;
  graceMs: number;
  fence?: (tx: SqlExecutor) => Promise<void>;
}

export interface EdgeWatchResult {
  paletteCalls: number;
  outboxRows: number;
  /** scopes whose edge read failed this cycle */
  failed: number;
}

export type EdgeWatch = (kind: "incremental" | "reconcile") => Promise<EdgeWatchResult>;

export function createEdgeWatch(deps: EdgeWatchDeps): EdgeWatch {
  return async (kind) => {
    const result: EdgeWatchResult = { paletteCalls: 0, outboxRows: 0, failed: 0 };
    for (const scope of deps.scopes) {
      const now = deps.clock.now();
      try {
        const cycle = await runEdgeCycle({
          palette: deps.palette,
          db: deps.db,
          scope,
          now,
          siteTag: deps.siteTag,
          graceMs: deps.graceMs,
          reconcile: kind === "reconcile",
          fence: deps.fence,
          tell: async (tx, grouped) => {
            if (grouped.sites.length === 0 && grouped.single.length === 0) return 0;
            const subs = await new SubscriptionStore(tx, deps.clock).all();
            const drafts = await edgeDrafts(tx, grouped, subs, now);
            const outbox = new OutboxStore(tx);
            const at = new Date(now).toISOString();
            for (const draft of drafts) await outbox.add(draft, at);
            return drafts.length;
          },
        });
        result.paletteCalls += cycle.requests;
        result.outboxRows += cycle.rows;
      } catch (error) {
        if (error instanceof FencedOut) throw error;
        result.failed += 1;
        const known = error instanceof PaletteError;
        deps.logger.warn(
          { project: scope, err: known ? error.message : String(error) },
          "edge hosts not read this cycle; nothing recorded, the next cycle tries again",
        );
      }
    }
    return result;
  };
}
