/**
 * The radar's edge risks (issue 39, item 5), as pure functions of what the bot read and
 * remembers: registration tokens about to expire or inactive but still a project's default, a
 * remote shell left open, agent versions that differ across one cluster's hosts, and hosts
 * `ready` but unused. Palette keeps no "open since" for a shell beyond the tunnel's
 * lastModifiedTime, and no "unused since" at all, so those times are the bot's own first sight
 * when Palette does not give one. Times are epoch milliseconds; texts are plain (escaped when
 * rendered).
 */

export const EDGE_RISK_KINDS = [
  "edge-token",
  "edge-shell",
  "edge-agent-skew",
  "edge-unused",
] as const;
export type EdgeRiskKind = (typeof EDGE_RISK_KINDS)[number];

export interface EdgeRiskSettings {
  /** EDGE_TOKEN_WARN_DAYS */
  tokenWarnDays: number;
  /** EDGE_SHELL_WARN_HOURS */
  shellWarnHours: number;
  /** EDGE_UNUSED_DAYS */
  unusedDays: number;
}

export const DEFAULT_EDGE_RISK_SETTINGS: EdgeRiskSettings = {
  tokenWarnDays: 14,
  shellWarnHours: 8,
  unusedDays: 30,
};

export interface EdgeRisk {
  kind: EdgeRiskKind;
  severity: "critical" | "warning" | "info";
  /** what it is about: a token, a host, a cluster */
  subject: { kind: "token" | "host" | "cluster"; uid: string; name: string; projectUid?: string };
  summary: string;
  /** the time the summary is about (an expiry, when the shell opened…) */
  at?: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

export interface TokenFacts {
  uid: string;
  name: string;
  /** epoch ms; undefined when Palette gives none */
  expiry?: number;
  active: boolean;
  defaultProjectUid?: string;
  defaultProjectName?: string;
}

/**
 * An active token expiring within `tokenWarnDays` (critical once expired: hosts registering with
 * it fail), and an inactive token still a project's default (new hosts of that project cannot
 * register with it).
 */
export function tokenRisks(
  tokens: readonly TokenFacts[],
  now: number,
  settings: EdgeRiskSettings,
): EdgeRisk[] {
  const risks: EdgeRisk[] = [];
  for (const token of tokens) {
    const subject = {
      kind: "token" as const,
      uid: token.uid,
      name: token.name,
      ...(token.defaultProjectUid ? { projectUid: token.defaultProjectUid } : {}),
    };
    if (!token.active) {
      if (token.defaultProjectUid) {
        risks.push({
          kind: "edge-token",
          severity: "warning",
          subject,
          summary: `registration token inactive but still the default of project ${token.defaultProjectName ?? token.defaultProjectUid}`,
        });
      }
      continue;
    }
    if (token.expiry === undefined) continue;
    const left = token.expiry - now;
    if (left > settings.tokenWarnDays * DAY) continue;
    risks.push({
      kind: "edge-token",
      severity: left <= 0 ? "critical" : "warning",
      subject,
      summary:
        left <= 0
          ? "registration token expired"
          : `registration token expires in ${plural(Math.ceil(left / DAY), "day")}`,
      at: token.expiry,
    });
  }
  return risks;
}

export interface ShellFacts {
  hostUid: string;
  hostName: string;
  projectUid?: string;
  /** `tunnelStatus.ssh.state`: Initiating, Created (open), Deleting, Deleted, Failed */
  state?: string;
  /** Palette's `tunnelStatus.ssh.lastModifiedTime`, epoch ms */
  since?: number;
}

/** Is the host's remote shell open? (`Created` is the only open state in the spec's enum.) */
export function shellOpen(shell: Pick<ShellFacts, "state">): boolean {
  return shell.state === "Created";
}

/**
 * A remote shell open longer than `shellWarnHours`: since Palette's lastModifiedTime of the
 * tunnel, else since the bot first saw it open (`firstSeenOpen`).
 */
export function shellRisk(
  shell: ShellFacts,
  firstSeenOpen: number | undefined,
  now: number,
  settings: EdgeRiskSettings,
): EdgeRisk | undefined {
  if (!shellOpen(shell)) return undefined;
  const since = shell.since ?? firstSeenOpen;
  if (since === undefined || now - since <= settings.shellWarnHours * HOUR) return undefined;
  const hours = Math.floor((now - since) / HOUR);
  return {
    kind: "edge-shell",
    severity: "warning",
    subject: {
      kind: "host",
      uid: shell.hostUid,
      name: shell.hostName,
      ...(shell.projectUid ? { projectUid: shell.projectUid } : {}),
    },
    summary: `remote shell open for ${hours >= 48 ? plural(Math.floor(hours / 24), "day") : plural(hours, "hour")}${shell.since === undefined ? " (since the bot first saw it)" : ""}`,
    at: since,
  };
}

export interface HostFacts {
  uid: string;
  name: string;
  projectUid: string;
  state: string;
  agentVersion?: string;
  clusterUid?: string;
  clusterName?: string;
}

/** Hosts of one cluster running different agent versions: one risk per cluster. */
export function agentSkewRisks(hosts: readonly HostFacts[]): EdgeRisk[] {
  const byCluster = new Map<string, HostFacts[]>();
  for (const host of hosts) {
    if (!host.clusterUid || !host.agentVersion) continue;
    byCluster.set(host.clusterUid, [...(byCluster.get(host.clusterUid) ?? []), host]);
  }
  const risks: EdgeRisk[] = [];
  for (const [clusterUid, members] of byCluster) {
    const counts = new Map<string, number>();
    for (const host of members) {
      counts.set(host.agentVersion!, (counts.get(host.agentVersion!) ?? 0) + 1);
    }
    if (counts.size < 2) continue;
    const versions = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([version, count]) => `${version} on ${plural(count, "host")}`);
    const first = members[0]!;
    risks.push({
      kind: "edge-agent-skew",
      severity: "warning",
      subject: {
        kind: "cluster",
        uid: clusterUid,
        name: first.clusterName ?? clusterUid,
        projectUid: first.projectUid,
      },
      summary: `edge agent versions differ across its hosts: ${versions.join(", ")}`,
    });
  }
  return risks;
}

/** Is the host ready and running no cluster? */
export function readyUnused(host: Pick<HostFacts, "state" | "clusterUid">): boolean {
  return host.state === "ready" && !host.clusterUid;
}

/** A host `ready` and unused for longer than `unusedDays`, since the bot first saw it so. */
export function unusedRisk(
  host: HostFacts,
  firstSeenUnused: number | undefined,
  now: number,
  settings: EdgeRiskSettings,
): EdgeRisk | undefined {
  if (!readyUnused(host) || firstSeenUnused === undefined) return undefined;
  const idle = now - firstSeenUnused;
  if (idle <= settings.unusedDays * DAY) return undefined;
  return {
    kind: "edge-unused",
    severity: "info",
    subject: { kind: "host", uid: host.uid, name: host.name, projectUid: host.projectUid },
    summary: `ready but running no cluster for ${plural(Math.floor(idle / DAY), "day")} (by the bot's reads)`,
    at: firstSeenUnused,
  };
}
