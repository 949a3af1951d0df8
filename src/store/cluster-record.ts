import type { ChangePlan, ChangeStatus, ChangeVerb } from "../model/change.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * The bot's own record of one cluster over a time range, read for `/palette why`: its launch,
 * the day-2 changes asked for it, the acknowledgements, snoozes and mutes of its cards (the audit
 * table), and the freezes that covered it. Read-only, at most {@link RECORD_LIMIT} rows of each.
 */

export const RECORD_LIMIT = 200;

export interface RecordedLaunch {
  at: number;
  requester: string;
  provider: string;
  name: string;
  /** whom the create ran as in Palette; undefined: the service account */
  paletteUser?: string;
}

export interface RecordedChange {
  id: number;
  verb: ChangeVerb;
  plan: ChangePlan;
  requester: string;
  approver?: string;
  status: ChangeStatus;
  reason?: string;
  createdAt: number;
  acceptedAt?: number;
  endedAt?: number;
}

export interface RecordedHold {
  at: number;
  userId: string;
  /** ack, snooze, unsnooze, mute, unmute */
  action: string;
  outcome: string;
}

export interface RecordedFreeze {
  createdAt: number;
  untilMs: number;
  liftedAt?: number;
  scope: "cluster" | "project" | "all";
  reason: string;
  frozenBy: string;
}

export interface ClusterRecord {
  launches: RecordedLaunch[];
  changes: RecordedChange[];
  holds: RecordedHold[];
  freezes: RecordedFreeze[];
}

interface ChangeRow {
  id: number;
  verb: string;
  plan: string;
  requester: string;
  approver: string | null;
  status: string;
  reason: string | null;
  created_at: number;
  accepted_at: number | null;
  ended_at: number | null;
}

interface FreezeRow {
  scope_kind: string;
  reason: string;
  frozen_by: string;
  created_at: number;
  until_ms: number;
  lifted_at: number | null;
}

const HOLD_ACTIONS = ["ack", "snooze", "unsnooze", "mute", "unmute"] as const;

/** A Palette UID as it may appear inside an audit row's text; anything else is not searched. */
const SAFE_UID = /^[A-Za-z0-9-]{1,64}$/;

export async function readClusterRecord(
  db: SqlExecutor,
  cluster: { uid: string; projectUid?: string },
  range: { sinceMs: number; untilMs: number },
): Promise<ClusterRecord> {
  const { sinceMs, untilMs } = range;
  const launches = await db.all<{
    created_at: number;
    requester: string;
    provider: string;
    name: string;
    palette_user?: string | null;
  }>(
    `SELECT created_at, requester, provider, name, palette_user FROM launches
     WHERE cluster_uid = ? AND created_at >= ? AND created_at <= ? ORDER BY created_at DESC LIMIT ?`,
    [cluster.uid, sinceMs, untilMs, RECORD_LIMIT],
  );
  const changeRows = await db.all<ChangeRow>(
    `SELECT id, verb, plan, requester, approver, status, reason, created_at, accepted_at, ended_at
     FROM changes WHERE cluster_uid = ? AND created_at <= ? AND COALESCE(ended_at, created_at) >= ?
     ORDER BY created_at DESC LIMIT ?`,
    [cluster.uid, untilMs, sinceMs, RECORD_LIMIT],
  );
  const changes: RecordedChange[] = [];
  for (const row of changeRows) {
    let plan: ChangePlan;
    try {
      plan = JSON.parse(row.plan) as ChangePlan;
    } catch {
      continue;
    }
    changes.push({
      id: Number(row.id),
      verb: row.verb as ChangeVerb,
      plan,
      requester: row.requester,
      ...(row.approver ? { approver: row.approver } : {}),
      status: row.status as ChangeStatus,
      ...(row.reason ? { reason: row.reason } : {}),
      createdAt: Number(row.created_at),
      ...(row.accepted_at !== null ? { acceptedAt: Number(row.accepted_at) } : {}),
      ...(row.ended_at !== null ? { endedAt: Number(row.ended_at) } : {}),
    });
  }
  // acknowledgements name the cluster's UID in their target, snoozes and mutes in their detail
  const holds: RecordedHold[] = [];
  if (SAFE_UID.test(cluster.uid)) {
    const pattern = `%${cluster.uid}%`;
    const rows = await db.all<{ at: string; user_id: string; action: string; outcome: string }>(
      `SELECT at, user_id, action, outcome FROM audit
       WHERE at >= ? AND at <= ? AND action IN (${HOLD_ACTIONS.map(() => "?").join(", ")})
         AND (target LIKE ? OR detail LIKE ?)
       ORDER BY at DESC LIMIT ?`,
      [
        new Date(sinceMs).toISOString(),
        new Date(untilMs).toISOString(),
        ...HOLD_ACTIONS,
        pattern,
        pattern,
        RECORD_LIMIT,
      ],
    );
    for (const row of rows) {
      const at = Date.parse(row.at);
      if (Number.isNaN(at)) continue;
      holds.push({ at, userId: row.user_id, action: row.action, outcome: row.outcome });
    }
  }
  const freezeRows = await db.all<FreezeRow>(
    `SELECT scope_kind, reason, frozen_by, created_at, until_ms, lifted_at FROM freezes
     WHERE created_at <= ? AND COALESCE(lifted_at, until_ms) >= ?
       AND (scope_kind = 'all' OR (scope_kind = 'cluster' AND scope_uid = ?)
            OR (scope_kind = 'project' AND scope_uid = ?))
     ORDER BY created_at DESC LIMIT ?`,
    [untilMs, sinceMs, cluster.uid, cluster.projectUid ?? "", RECORD_LIMIT],
  );
  const freezes = freezeRows.map(
    (row): RecordedFreeze => ({
      createdAt: Number(row.created_at),
      untilMs: Number(row.until_ms),
      ...(row.lifted_at !== null ? { liftedAt: Number(row.lifted_at) } : {}),
      scope: row.scope_kind as RecordedFreeze["scope"],
      reason: row.reason,
      frozenBy: row.frozen_by,
    }),
  );
  return {
    launches: launches.map((row) => ({
      at: Number(row.created_at),
      requester: row.requester,
      provider: row.provider,
      name: row.name,
      ...(row.palette_user ? { paletteUser: row.palette_user } : {}),
    })),
    changes,
    holds,
    freezes,
  };
}
