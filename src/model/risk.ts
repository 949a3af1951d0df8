/**
 * The radar's risks (issue 28), as pure functions of what it last read of a cluster. A risk is
 * something about to break or quietly neglected; a newer profile version is information. Times
 * are epoch milliseconds.
 */

export const RISK_KINDS = ["certificates", "repave", "backup", "update"] as const;
export type RiskKind = (typeof RISK_KINDS)[number];

/** worst first */
export const SEVERITIES = ["critical", "warning", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const KIND_TITLES: Record<RiskKind, string> = {
  certificates: "Certificates expiring",
  repave: "Repave waiting for approval",
  backup: "Backups failing or late",
  update: "Newer profile versions",
};

/** What the radar last read of one cluster (a part is absent when it was never read). */
export interface RadarReading {
  /** the earliest expiry of the cluster's Kubernetes certificates, and how many expire then */
  certificates?: { earliest: number; count: number };
  backup?: {
    /** the policy's cron, if it has one */
    schedule?: string;
    /** the newest run */
    last?: { state: string; at?: number; message?: string };
    /** the newest Completed run */
    lastSuccessAt?: number;
    /** false: no backup policy (no location) */
    policy: boolean;
  };
  updates?: Array<{ name: string; version?: string }>;
}

export interface RiskSettings {
  certWarnDays: number;
  repaveWarnHours: number;
}

export const DEFAULT_RISK_SETTINGS: RiskSettings = { certWarnDays: 30, repaveWarnHours: 24 };

/** Palette renews control-plane certificates 30 days before expiry; 7 days left means it did not. */
export const CERT_CRITICAL_DAYS = 7;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface Risk {
  kind: RiskKind;
  severity: Severity;
  /** plain text (escaped when rendered): what holds, e.g. "certificates expire in 20 days" */
  summary: string;
  /** what orders risks of one kind, smallest = worst (an expiry, when a repave began…) */
  rank: number;
  /** the time the summary is about (an expiry, a backup's last success), for the card */
  at?: number;
}

const days = (ms: number): number => Math.floor(ms / DAY);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Certificates within `certWarnDays` of expiry: a warning, critical within 7 days. */
export function certificateRisk(
  reading: RadarReading,
  now: number,
  settings: RiskSettings,
): Risk | undefined {
  const certs = reading.certificates;
  if (!certs) return undefined;
  const left = certs.earliest - now;
  if (left > settings.certWarnDays * DAY) return undefined;
  const severity: Severity = left <= CERT_CRITICAL_DAYS * DAY ? "critical" : "warning";
  const summary =
    left <= 0
      ? `${plural(certs.count, "Kubernetes certificate")} expired`
      : `${plural(certs.count, "Kubernetes certificate")} expire in ${plural(Math.ceil(left / DAY), "day")}`;
  return { kind: "certificates", severity, summary, rank: certs.earliest, at: certs.earliest };
}

/** A repave held for approval longer than `repaveWarnHours`. */
export function repaveRisk(
  pendingSince: number | undefined,
  now: number,
  settings: RiskSettings,
): Risk | undefined {
  if (pendingSince === undefined) return undefined;
  const waited = now - pendingSince;
  if (waited <= settings.repaveWarnHours * HOUR) return undefined;
  const hours = Math.floor(waited / HOUR);
  const summary =
    hours >= 48
      ? `repave pending approval for ${plural(days(waited), "day")}`
      : `repave pending approval for ${plural(hours, "hour")}`;
  return { kind: "repave", severity: "warning", summary, rank: pendingSince, at: pendingSince };
}

/**
 * How often a cron expression runs, roughly: enough to tell "late" from "on time". A day of the
 * week → weekly; a day of the month or a month → monthly; an hour field of `*` or a step → hourly
 * (or every n hours); otherwise daily. Undefined for an expression it cannot read.
 */
export function schedulePeriodMs(cron: string | undefined): number | undefined {
  if (!cron) return undefined;
  const fields = cron.trim().split(/\s+/);
  // node-cron and Palette accept an optional seconds field first
  const [, hour, dayOfMonth, month, dayOfWeek] = fields.length === 6 ? fields.slice(1) : fields;
  if (fields.length < 5 || fields.length > 6 || hour === undefined) return undefined;
  if (dayOfWeek !== undefined && dayOfWeek !== "*" && dayOfWeek !== "?") return 7 * DAY;
  if ((dayOfMonth !== "*" && dayOfMonth !== "?") || month !== "*") return 31 * DAY;
  if (hour === "*") return HOUR;
  const step = /^\*\/(\d+)$/.exec(hour);
  if (step) return Math.max(1, Number(step[1])) * HOUR;
  if (hour.includes(",")) return Math.ceil(DAY / hour.split(",").length);
  return DAY;
}

const FAILED = /fail|error/i;

/** A policy whose last run failed, or whose last success is older than twice its schedule. */
export function backupRisk(reading: RadarReading, now: number): Risk | undefined {
  const backup = reading.backup;
  if (!backup?.policy) return undefined;
  const last = backup.last;
  if (last && FAILED.test(last.state)) {
    const why = last.message ? `: ${last.message}` : "";
    return {
      kind: "backup",
      severity: "warning",
      summary: `last backup ${last.state}${why}`,
      rank: backup.lastSuccessAt ?? 0,
      ...(last.at !== undefined ? { at: last.at } : {}),
    };
  }
  const period = schedulePeriodMs(backup.schedule);
  if (period === undefined) return undefined;
  if (backup.lastSuccessAt === undefined) {
    if (last) return undefined; // a first run under way
    return { kind: "backup", severity: "warning", summary: "scheduled backups never ran", rank: 0 };
  }
  const age = now - backup.lastSuccessAt;
  if (age <= 2 * period) return undefined;
  return {
    kind: "backup",
    severity: "warning",
    summary: `last successful backup ${age >= 2 * DAY ? plural(days(age), "day") : plural(Math.floor(age / HOUR), "hour")} ago`,
    rank: backup.lastSuccessAt,
    at: backup.lastSuccessAt,
  };
}

/** A newer version of a profile the cluster uses: information, not a risk. */
export function updateRisk(reading: RadarReading): Risk | undefined {
  const updates = reading.updates ?? [];
  if (updates.length === 0) return undefined;
  const named = updates
    .slice(0, 3)
    .map((u) => (u.version ? `${u.name} ${u.version}` : u.name))
    .join(", ");
  const more = updates.length > 3 ? ` and ${updates.length - 3} more` : "";
  return {
    kind: "update",
    severity: "info",
    summary: `newer profile version: ${named}${more}`,
    rank: 0,
  };
}

/** Every risk that holds for a cluster now, in RISK_KINDS order. */
export function risksOf(
  reading: RadarReading,
  repavePendingSince: number | undefined,
  now: number,
  settings: RiskSettings = DEFAULT_RISK_SETTINGS,
): Risk[] {
  return [
    certificateRisk(reading, now, settings),
    repaveRisk(repavePendingSince, now, settings),
    backupRisk(reading, now),
    updateRisk(reading),
  ].filter((risk): risk is Risk => risk !== undefined);
}

/** Worst first: by severity, then by rank (soonest expiry, longest wait…), then by name. */
export function compareRisks(
  a: { risk: Risk; name: string },
  b: { risk: Risk; name: string },
): number {
  const severity = SEVERITIES.indexOf(a.risk.severity) - SEVERITIES.indexOf(b.risk.severity);
  if (severity !== 0) return severity;
  if (a.risk.rank !== b.risk.rank) return a.risk.rank - b.risk.rank;
  return a.name.localeCompare(b.name);
}

/** What a notice shows; a notice is edited only when this changes. */
export function riskFingerprint(risk: Risk): string {
  return `${risk.severity}|${risk.summary}`;
}
