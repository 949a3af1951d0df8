/**
 * A day-2 change to one cluster, as planned from Palette's state when the person asked, shown
 * in the confirmation, checked again when they confirm and followed after Palette accepts. Pure.
 */

export const CHANGE_VERB_NAMES = [
  "scale",
  "delete",
  "cordon",
  "uncordon",
  "repave",
  "pause",
  "resume",
  "backup",
  "logs",
  "upgrade",
  "renew",
] as const;
export type ChangeVerb = (typeof CHANGE_VERB_NAMES)[number];

export interface ChangeCluster {
  uid: string;
  name: string;
  projectUid: string;
  /** Palette's cloud type (aws, vsphere, …) */
  cloudType: string;
  /** the cluster's state when planned: Running, Provisioning, … */
  state: string;
}

export interface ScalePlan {
  verb: "scale";
  cluster: ChangeCluster;
  configUid: string;
  pool: string;
  from: number;
  to: number;
  /** set when the pool autoscales: the size must stay within it */
  autoscale?: { min: number; max: number };
}

export interface DeletePlan {
  verb: "delete";
  cluster: ChangeCluster;
}

/** A node taken out of scheduling (drained) or put back. */
export interface MaintenancePlan {
  verb: "cordon" | "uncordon";
  cluster: ChangeCluster;
  configUid: string;
  pool: string;
  machine: { uid: string; name: string };
}

/** Palette holds a repave (nodes replaced for a pack change) until someone approves it. */
export interface RepavePlan {
  verb: "repave";
  cluster: ChangeCluster;
  /** Palette's reasons, e.g. "kubernetes 1.29.4 → 1.29.6 changes the node image" */
  reasons: string[];
}

/** A virtual cluster's lifecycle paused (its workloads scaled to zero) or resumed. */
export interface PausePlan {
  verb: "pause" | "resume";
  cluster: ChangeCluster;
}

/** An on-demand backup to the location the cluster's backup policy names. */
export interface BackupPlan {
  verb: "backup";
  cluster: ChangeCluster;
  location: { uid: string; name: string };
  backupName: string;
  /** how long the backup is kept, from the cluster's policy */
  ttlHours: number;
  includeAllDisks: boolean;
  includeClusterResources: boolean;
  /** empty: every namespace */
  namespaces: string[];
}

/** Palette collects the cluster's logs; the file goes to the requester's DMs. */
export interface LogsPlan {
  verb: "logs";
  cluster: ChangeCluster;
  /** the last lines of each log */
  lines: number;
}

/** An attached cluster profile moved to a newer version of itself. */
export interface UpgradePlan {
  verb: "upgrade";
  cluster: ChangeCluster;
  profile: { name: string; fromUid: string; fromVersion: string; toUid: string; toVersion: string };
  /** the packs whose version changes (absent on one side: added or removed) */
  packs: Array<{ name: string; from?: string; to?: string }>;
}

/**
 * The control plane's Kubernetes certificates renewed now (PATCH …/k8certificates/renew), as
 * the radar suggests when they near expiry; `expiresAt` is the earliest expiry when planned.
 */
export interface RenewPlan {
  verb: "renew";
  cluster: ChangeCluster;
  /** epoch ms: the earliest certificate expiry Palette listed */
  expiresAt: number;
  /** how many certificates expire then */
  count: number;
  /** epoch ms: when Palette was read (the confirmation counts the days left from it) */
  readAt: number;
}

export type ChangePlan =
  | RenewPlan
  | ScalePlan
  | DeletePlan
  | MaintenancePlan
  | RepavePlan
  | PausePlan
  | BackupPlan
  | LogsPlan
  | UpgradePlan;

type ChangePermission = "scale" | "delete" | "maintenance" | "backup" | "logs" | "upgrade";

/** Who may: each verb's ALLOW_* permission. */
export const CHANGE_PERMISSION: Record<ChangeVerb, ChangePermission> = {
  scale: "scale",
  delete: "delete",
  cordon: "maintenance",
  uncordon: "maintenance",
  repave: "maintenance",
  pause: "maintenance",
  resume: "maintenance",
  backup: "backup",
  logs: "logs",
  upgrade: "upgrade",
  renew: "maintenance",
};

/** These can't be undone by another click: the person types the cluster's name to confirm. */
export function requiresTypedName(verb: ChangeVerb): boolean {
  return verb === "delete" || verb === "pause" || verb === "upgrade";
}

export type ChangeStatus =
  /** waiting for a second person (APPROVAL_REQUIRED) */
  | "awaiting_approval"
  | "rejected"
  | "expired"
  /** claimed: its Palette request is being sent (by exactly one replica) */
  | "executing"
  /** Palette accepted; the card follows it */
  | "accepted"
  /**
   * the request went out but Palette's answer did not come back (time-out, connection reset):
   * it may have happened. The follower reads Palette to find out; it is never sent again.
   */
  | "unconfirmed"
  | "done"
  /** Palette refused, the change was not sent, or it did not reach its end */
  | "failed";

export const OPEN_STATUSES: readonly ChangeStatus[] = [
  "awaiting_approval",
  "executing",
  "accepted",
  "unconfirmed",
];

/**
 * The states of a change, the moves out of each and the end the requester sees. Every open
 * state has a bounded way out, so no change waits without an end:
 * - `executing` whose sender's heartbeat stopped {@link STUCK_EXECUTING_MS} ago (its replica died,
 *   or stopped between Palette's answer and the store) is taken over as `unconfirmed` by the
 *   lease holder: read, never sent again. A sender still at work keeps its heartbeat however long
 *   it takes, and checks its claim just before the write, so a taken-over claim is never sent.
 * - `unconfirmed` that Palette shows no sign of after {@link UNCONFIRMED_CHECK_MS} ends
 *   `failed` "not applied" ({@link RENEW_CHECK_MS} for a renewal, which shows only once done);
 *   one that Palette shows is followed like an accepted one.
 * - `accepted` ends `done`/`failed` from Palette's state, `failed` after the follow bound, or
 *   `failed` "could not be checked" after {@link MAX_FAILED_READS} reads that failed in a row.
 */
export const CHANGE_STATES: Readonly<
  Record<ChangeStatus, { moves: readonly ChangeStatus[]; requesterSees: string }>
> = {
  awaiting_approval: {
    // failed: the request reached nobody (neither its channel nor the requester's DM took it)
    moves: ["executing", "rejected", "expired", "failed"],
    requesterSees: "the request card, waiting for a second person",
  },
  rejected: { moves: [], requesterSees: "rejected by the approver" },
  expired: { moves: [], requesterSees: "expired: nobody approved it in time" },
  executing: {
    moves: ["accepted", "unconfirmed", "failed"],
    requesterSees: "nothing yet: the request is on its way to Palette",
  },
  accepted: { moves: ["done", "failed"], requesterSees: "the card following Palette's progress" },
  unconfirmed: {
    moves: ["accepted", "done", "failed"],
    requesterSees: "Palette did not answer; the card says it is checking whether it took effect",
  },
  done: { moves: [], requesterSees: "done" },
  failed: {
    moves: [],
    requesterSees: "failed with Palette's reason, not sent (and why), or not seen in Palette",
  },
};

/**
 * an `executing` row whose sender's heartbeat (every 20 s, src/changes/claim.ts) stopped this
 * long ago lost its replica: it is reconciled by reading
 */
export const STUCK_EXECUTING_MS = 2 * 60_000;
/** how long an unconfirmed change may show no sign in Palette before it is called not applied */
export const UNCONFIRMED_CHECK_MS = 2 * 60_000;
/**
 * The same for a certificate renewal: Palette shows nothing of one until the new certificates
 * are in place (the earliest expiry moves), and it renews the control plane node by node, which
 * takes minutes per node. 30 minutes covers a five-node control plane with room to spare.
 */
export const RENEW_CHECK_MS = 30 * 60_000;

/** how long an unconfirmed change of this verb is read before it ends without a sign of it */
export function unconfirmedCheckMs(verb: ChangeVerb): number {
  return verb === "renew" ? RENEW_CHECK_MS : UNCONFIRMED_CHECK_MS;
}
/** progress reads that fail in a row before the follower gives up and says so */
export const MAX_FAILED_READS = 6;

/** may a change in `from` move to `to`? */
export function canMove(from: ChangeStatus, to: ChangeStatus): boolean {
  return CHANGE_STATES[from].moves.includes(to);
}

/**
 * The store's guard on every move it makes: a move outside {@link CHANGE_STATES} is a bug in
 * the caller, so it throws before anything is written rather than leave a row in a state whose
 * end nobody handles.
 */
export function assertMove(from: ChangeStatus, to: ChangeStatus): void {
  if (!canMove(from, to)) throw new Error(`a change cannot move from ${from} to ${to}`);
}

/** How far a followed change has got, from Palette's state. */
export type ChangeProgress =
  | { kind: "working"; line: string }
  | { kind: "done"; line: string }
  | { kind: "failed"; line: string };

export interface PoolMachines {
  running: number;
  total: number;
  failed: number;
}

export function scaleProgress(plan: ScalePlan, machines: PoolMachines): ChangeProgress {
  if (machines.failed > 0) {
    return { kind: "failed", line: `${machines.failed} machine(s) of \`${plan.pool}\` failed` };
  }
  if (machines.total === plan.to && machines.running === plan.to) {
    return { kind: "done", line: `${plan.to} Running` };
  }
  return { kind: "working", line: `${machines.running} of ${plan.to} Running` };
}

/** a machine's maintenance as Palette reports it: done once the action is Complete */
export function maintenanceProgress(
  plan: MaintenancePlan,
  status: { action?: string; state?: string } | undefined,
): ChangeProgress {
  const done = plan.verb === "cordon" ? "cordoned" : "schedulable again";
  if (status?.action === plan.verb && /^complete/i.test(status.state ?? "")) {
    return { kind: "done", line: `\`${plan.machine.name}\` ${done}` };
  }
  if (status?.action === plan.verb && /fail/i.test(status.state ?? "")) {
    return { kind: "failed", line: `Palette says the ${plan.verb} failed` };
  }
  return { kind: "working", line: status?.state ?? "asked" };
}

/** Renewed once the earliest expiry Palette lists is later than the one planned. */
export function renewProgress(plan: RenewPlan, earliest: number | undefined): ChangeProgress {
  if (earliest !== undefined && earliest > plan.expiresAt) {
    return {
      kind: "done",
      line: `certificates renewed: the earliest now expires ${new Date(earliest).toISOString().slice(0, 10)}`,
    };
  }
  return { kind: "working", line: "Palette is renewing the certificates" };
}

export function repaveProgress(state: string | undefined): ChangeProgress {
  if (state === "Approved") return { kind: "done", line: "approved; Palette repaves the nodes" };
  if (state === "Reverted") return { kind: "failed", line: "Palette reverted the repave" };
  return { kind: "working", line: state ?? "asked" };
}

/** a virtual cluster's own state: Paused, or back to Running */
export function pauseProgress(plan: PausePlan, virtualState: string | undefined): ChangeProgress {
  const wanted = plan.verb === "pause" ? "Paused" : "Running";
  if (virtualState === wanted) return { kind: "done", line: wanted };
  return { kind: "working", line: virtualState ?? "asked" };
}

/** an on-demand backup's state as Palette reports it (Completed, InProgress, Failed …) */
export function backupProgress(plan: BackupPlan, state: string | undefined): ChangeProgress {
  if (state && /^complete/i.test(state)) {
    return {
      kind: "done",
      line: `\`${plan.backupName}\` in ${plan.location.name || "its location"}`,
    };
  }
  if (state && /fail|error/i.test(state)) return { kind: "failed", line: `Palette says ${state}` };
  return { kind: "working", line: state ?? "asked" };
}

/** Palette's log fetch: done once it names the file it collected */
export function logsProgress(status: { state?: string; fileName?: string }): ChangeProgress {
  if (status.state && /fail|error/i.test(status.state)) {
    return { kind: "failed", line: `Palette says ${status.state}` };
  }
  if (status.fileName && (!status.state || /^complete/i.test(status.state))) {
    return { kind: "done", line: status.fileName };
  }
  return { kind: "working", line: status.state ?? "asked" };
}

/** The packs whose tag differs between two versions of a profile, in the newer one's order. */
export function packChanges(
  from: ReadonlyArray<{ name: string; tag?: string }>,
  to: ReadonlyArray<{ name: string; tag?: string }>,
): Array<{ name: string; from?: string; to?: string }> {
  const before = new Map(from.map((pack) => [pack.name, pack.tag]));
  const changes: Array<{ name: string; from?: string; to?: string }> = [];
  for (const pack of to) {
    if (!before.has(pack.name)) changes.push({ name: pack.name, to: pack.tag });
    else if (before.get(pack.name) !== pack.tag) {
      changes.push({ name: pack.name, from: before.get(pack.name), to: pack.tag });
    }
  }
  const after = new Set(to.map((pack) => pack.name));
  for (const pack of from)
    if (!after.has(pack.name)) changes.push({ name: pack.name, from: pack.tag });
  return changes;
}

/** "1.10.0" > "1.9.2": versions compared number by number (a suffix compares as text) */
export function newerVersion(a: string, b: string): boolean {
  const left = a.split(/[.-]/);
  const right = b.split(/[.-]/);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? "0";
    const y = right[i] ?? "0";
    const nx = Number(x);
    const ny = Number(y);
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) {
      if (nx !== ny) return nx > ny;
    } else if (x !== y) return x > y;
  }
  return false;
}

export function upgradeProgress(
  plan: UpgradePlan,
  attachedUids: readonly string[],
): ChangeProgress {
  if (attachedUids.includes(plan.profile.toUid)) {
    return { kind: "done", line: `${plan.profile.name} ${plan.profile.toVersion} applied` };
  }
  return { kind: "working", line: "Palette is applying the new version" };
}

/** `undefined` state: Palette no longer knows the cluster (404), which is what delete wants */
export function deleteProgress(state: string | undefined): ChangeProgress {
  if (state === undefined || state === "Deleted") return { kind: "done", line: "deleted" };
  if (state === "Failed") return { kind: "failed", line: "Palette says the delete failed" };
  return { kind: "working", line: state };
}

/** "4 m 12 s", "52 s", "1 h 3 m": how long a change took, for its card */
export function formatTook(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} m ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} m`;
}
