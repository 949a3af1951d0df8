import { describe, expect, it } from "vitest";
import type { Risk } from "../../../src/model/risk.ts";
import type { Subscription } from "../../../src/model/subscription.ts";
import { digestRisks } from "../../../src/notify/digest/channel-digest-source.ts";
import { RadarStore } from "../../../src/store/radar.ts";
import type { SqlExecutor } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";

/**
 * The radar's store at fleet size (issue 31 item 14): a cluster's notices are found by index,
 * not by scanning every notice, and the digest's risks are one query, not one per risk.
 */

const risk = (summary: string): Risk => ({
  kind: "certificates",
  severity: "critical",
  summary,
  rank: 1,
});

describe("the radar's store at fleet size", () => {
  it("finds a cluster's notices through an index on radar_notices(cluster_uid)", async () => {
    const db = await openSqlite(":memory:");
    const plan = await db.all<{ detail: string }>(
      "EXPLAIN QUERY PLAN SELECT channel, cluster_uid, kind, ts, shown, gone FROM radar_notices WHERE cluster_uid = ?",
      ["c1"],
    );
    const details = plan.map((row) => row.detail).join("\n");
    expect(details).toMatch(/USING (COVERING )?INDEX radar_notices_cluster_uid/);
    await db.close();
  });

  it("reads the digest's risks in one query, whatever the number of risks", async () => {
    const db = await openSqlite(":memory:");
    const store = new RadarStore(db);
    for (let i = 0; i < 40; i += 1) {
      const uid = `c${i}`;
      await db.run(
        `INSERT INTO notify_snapshots (project, project_uid, cluster_uid, name, state, health, tags, updated_at)
         VALUES ('', ?, ?, ?, 'Running', 'Healthy', '["env:prod"]', '2026-01-01T00:00:00Z')`,
        [i % 2 === 0 ? "p1" : "p2", uid, `cluster-${i}`],
      );
      await store.replaceRisks(
        { uid, name: `cluster-${i}`, project: i % 2 === 0 ? "p1" : "p2" },
        [risk(`expires in ${i} days`)],
        1,
      );
    }
    let queries = 0;
    const counting: SqlExecutor = {
      all: (sql, params) => {
        queries += 1;
        return db.all(sql, params);
      },
      get: (sql, params) => {
        queries += 1;
        return db.get(sql, params);
      },
      run: (sql, params) => {
        queries += 1;
        return db.run(sql, params);
      },
    };
    const subscription: Subscription = {
      id: 1,
      channel: "C1",
      kind: "risks",
      project: "p1",
      createdBy: "U1",
      createdAt: "2026-01-01T00:00:00Z",
    };
    const risks = await digestRisks(counting, [subscription]);
    expect(risks.worst.total).toBe(20);
    expect(risks.counts).toEqual({ certificates: 20 });
    expect(queries).toBe(1);
    await db.close();
  });
});
