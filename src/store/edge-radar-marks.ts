import { chunks } from "./snapshots.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * When the bot first saw a host's remote shell open, or the host ready and unused (migration
 * 111, issue 39 item 5): the radar's measure of what Palette does not date. `sync` keeps a
 * mark's first time while the state holds and drops it the read it ends.
 */

export type EdgeMark = "shell-open" | "ready-unused";

export class EdgeRadarMarks {
  constructor(private readonly db: SqlExecutor) {}

  /** Each host's first sighting of `mark`, for the hosts given. */
  async get(mark: EdgeMark, hostUids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const part of chunks([...new Set(hostUids)])) {
      const rows = await this.db.all<{ host_uid: string; since: number | string }>(
        `SELECT host_uid, since FROM edge_radar_marks WHERE mark = ? AND host_uid IN (${part.map(() => "?").join(", ")})`,
        [mark, ...part],
      );
      for (const row of rows) found.set(row.host_uid, Number(row.since));
    }
    return found;
  }

  /**
   * Of the hosts read (`read`), those in `holding` keep (or get, at `now`) the mark; the rest
   * lose it. Returns each holding host's first sighting.
   */
  async sync(
    mark: EdgeMark,
    read: readonly string[],
    holding: ReadonlySet<string>,
    now: number,
  ): Promise<Map<string, number>> {
    const known = await this.get(mark, read);
    for (const uid of read) {
      if (holding.has(uid) && !known.has(uid)) {
        await this.db.run(
          "INSERT INTO edge_radar_marks (host_uid, mark, since) VALUES (?, ?, ?) ON CONFLICT (host_uid, mark) DO NOTHING",
          [uid, mark, now],
        );
        known.set(uid, now);
      } else if (!holding.has(uid) && known.has(uid)) {
        await this.db.run("DELETE FROM edge_radar_marks WHERE host_uid = ? AND mark = ?", [
          uid,
          mark,
        ]);
        known.delete(uid);
      }
    }
    return known;
  }
}
