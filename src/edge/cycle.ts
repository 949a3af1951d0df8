import type { EdgeHostRecord } from "../model/edge-host.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import type { SqlDb } from "../store/sql.ts";
import { type EdgeNews, type ObserveContext, observe } from "./observe.ts";
import { type EdgeScopeRead, readEdgeFull, readEdgeIncremental } from "./read.ts";
import { type GroupedNews, groupBySite } from "./site-rollup.ts";

/**
 * One poll cycle of one scope's edge hosts (issue 39): read (the full listing at the scope's
 * first read and on reconciliation, else incrementally), judge each host against the bot's
 * record (observe.ts), and write the records in one transaction. Returns the cycle's news,
 * grouped by site, for the caller to route to `edge` channels through the outbox.
 */

export interface EdgeCycleInput {
  palette: Parameters<typeof readEdgeIncremental>[0];
  db: SqlDb;
  scope: string;
  now: number;
  siteTag: string;
  graceMs: number;
  /** read everything (the reconciliation's schedule) */
  reconcile?: boolean;
}

export interface EdgeCycleResult {
  news: EdgeNews[];
  grouped: GroupedNews;
  requests: number;
  /** the scope's first read: learnt, told nothing */
  baseline: boolean;
}

export async function runEdgeCycle(input: EdgeCycleInput): Promise<EdgeCycleResult> {
  const store = new EdgeHostStore(input.db);
  const baseline = (await store.count(input.scope)) === 0;
  let read: EdgeScopeRead;
  if (baseline || input.reconcile) {
    read = await readEdgeFull(input.palette, input.scope, await store.inScope(input.scope));
  } else {
    const notHealthy = await store.notHealthy(input.scope);
    read = await readEdgeIncremental(input.palette, input.scope, {
      watermark: await store.watermark(input.scope),
      unhealthy: notHealthy.filter((record) => record.health === "unhealthy"),
    });
  }
  const context: ObserveContext = {
    now: input.now,
    scope: input.scope,
    siteTag: input.siteTag,
    graceMs: input.graceMs,
    baseline,
  };
  const news = await input.db.transaction(async (tx) => {
    const inTx = store.within(tx);
    const previous = await inTx.get([...read.seen.keys(), ...read.gone]);
    const save: EdgeHostRecord[] = [];
    const told: EdgeNews[] = [];
    for (const [uid, host] of read.seen) {
      const { record, news: item } = observe(previous.get(uid), host, context);
      if (record) save.push(record);
      if (item) told.push(item);
    }
    for (const uid of read.gone) {
      const { news: item } = observe(previous.get(uid), undefined, context);
      if (item) told.push(item);
    }
    await inTx.save(save);
    await inTx.forget(read.gone);
    return told;
  });
  return { news, grouped: groupBySite(news), requests: read.requests, baseline };
}
