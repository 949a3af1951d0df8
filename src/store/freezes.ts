import type { Clock } from "../clock.ts";
import type { Freeze, FreezeScope } from "../model/freeze.ts";
import type { SqlExecutor } from "./sql.ts";

interface FreezeRow {
  id: number;
  scope_kind: string;
  scope_uid: string;
  scope_name: string;
  until_ms: number;
  reason: string;
  frozen_by: string;
  created_at: number;
  announced_in: string | null;
}

function toScope(row: FreezeRow): FreezeScope {
  if (row.scope_kind === "cluster") {
    return { kind: "cluster", uid: row.scope_uid, name: row.scope_name };
  }
  if (row.scope_kind === "project") return { kind: "project", uid: row.scope_uid };
  return { kind: "all" };
}

function toFreeze(row: FreezeRow): Freeze {
  return {
    id: Number(row.id),
    scope: toScope(row),
    untilMs: Number(row.until_ms),
    reason: row.reason,
    frozenBy: row.frozen_by,
    createdAt: Number(row.created_at),
    ...(row.announced_in ? { announcedIn: row.announced_in } : {}),
  };
}

/** The freezes table: one row per freeze; lifting one keeps the row, for the record. */
export class FreezeStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  async add(input: {
    scope: FreezeScope;
    untilMs: number;
    reason: string;
    frozenBy: string;
    /** the channel `/palette freeze` answered in: its lift is told there too */
    announcedIn?: string;
  }): Promise<Freeze> {
    const scope = input.scope;
    const row = await this.db.get<FreezeRow>(
      `INSERT INTO freezes (scope_kind, scope_uid, scope_name, until_ms, reason, frozen_by, created_at, announced_in)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [
        scope.kind,
        scope.kind === "all" ? "" : scope.uid,
        scope.kind === "cluster" ? scope.name : "",
        input.untilMs,
        input.reason,
        input.frozenBy,
        this.clock.now(),
        input.announcedIn ?? null,
      ],
    );
    return toFreeze(row!);
  }

  /** freezes that have not ended nor been lifted, the longest first */
  async active(): Promise<Freeze[]> {
    const rows = await this.db.all<FreezeRow>(
      "SELECT * FROM freezes WHERE lifted_at IS NULL AND until_ms > ? ORDER BY until_ms DESC, id",
      [this.clock.now()],
    );
    return rows.map(toFreeze);
  }

  /**
   * lifts the active freezes of exactly this scope (only those `onlyFrozenBy` set, when given:
   * one who may lift only their own); returns those lifted
   */
  async lift(scope: FreezeScope, liftedBy: string, onlyFrozenBy?: string): Promise<Freeze[]> {
    const rows = await this.db.all<FreezeRow>(
      `UPDATE freezes SET lifted_at = ?, lifted_by = ?
       WHERE lifted_at IS NULL AND until_ms > ? AND scope_kind = ? AND scope_uid = ?
       ${onlyFrozenBy === undefined ? "" : "AND frozen_by = ?"}
       RETURNING *`,
      [
        this.clock.now(),
        liftedBy,
        this.clock.now(),
        scope.kind,
        scope.kind === "all" ? "" : scope.uid,
        ...(onlyFrozenBy === undefined ? [] : [onlyFrozenBy]),
      ],
    );
    return rows.map(toFreeze);
  }
}
