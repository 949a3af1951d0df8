import {
  agentSkewRisks,
  type EdgeRisk,
  type EdgeRiskSettings,
  type HostFacts,
  readyUnused,
  shellOpen,
  shellRisk,
  tokenRisks,
  unusedRisk,
} from "../model/edge-risk.ts";
import type { PaletteEdgeApi } from "../palette/edge-api.ts";
import { describeForUser } from "../palette/errors.ts";
import { inBulk, type RequestGate } from "../palette/priority.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import { EdgeRadarMarks } from "../store/edge-radar-marks.ts";
import type { SqlExecutor } from "../store/sql.ts";

/**
 * The radar's look at the edge fleet (issue 39, item 5): per watched scope, one read of the
 * registration tokens, and one read of each edge-native cluster's hosts (for their remote
 * shells); agent-version skew and hosts ready but unused come from the edge poll's own record of
 * the hosts (src/store/edge-hosts.ts) and cost Palette nothing. Every request is marked bulk and
 * passes the radar's gate, so it is paced as the sweep's are and sent only behind the poll and
 * people's commands. A read that fails is named and the rest still counts.
 *
 * Not read: the remote shell of a host running no cluster (only GET /v1/edgehosts/{uid} says it,
 * one request per such host).
 */

export type EdgeRadarPalette = Pick<PaletteEdgeApi, "listEdgeTokens" | "clusterEdgeHosts">;

export interface EdgeRadarOptions {
  palette: EdgeRadarPalette;
  db: SqlExecutor;
  /** PALETTE_PROJECTS; empty = tenant scope */
  projects: readonly string[];
  now: number;
  settings: EdgeRiskSettings;
  /** the radar's pacing gate, before each request */
  gate?: RequestGate;
}

export interface EdgeRadarResult {
  risks: EdgeRisk[];
  /** Palette calls made */
  calls: number;
  /** reads that failed, in words fit for a log line (never a token's value: it is never read) */
  unread: Array<{ what: string; why: string }>;
}

const parseTime = (text: string | undefined): number | undefined => {
  if (!text) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : at;
};

export async function readEdgeRisks(options: EdgeRadarOptions): Promise<EdgeRadarResult> {
  const { palette, db, now, settings } = options;
  const scopes = options.projects.length > 0 ? options.projects : [""];
  const result: EdgeRadarResult = { risks: [], calls: 0, unread: [] };
  const bulk = <T>(work: () => Promise<T>): Promise<T> => {
    result.calls += 1;
    return inBulk(work, options.gate);
  };
  const marks = new EdgeRadarMarks(db);
  const seenTokens = new Set<string>();

  for (const scope of scopes) {
    const projectScope = scope ? { projectUid: scope } : {};
    try {
      const tokens = (await bulk(() => palette.listEdgeTokens(projectScope))).filter(
        (token) => !seenTokens.has(token.uid),
      );
      for (const token of tokens) seenTokens.add(token.uid);
      result.risks.push(
        ...tokenRisks(
          tokens.map((token) => ({
            uid: token.uid,
            name: token.name,
            active: token.active,
            ...(parseTime(token.expiry) !== undefined ? { expiry: parseTime(token.expiry) } : {}),
            ...(token.defaultProjectUid ? { defaultProjectUid: token.defaultProjectUid } : {}),
            ...(token.defaultProjectName ? { defaultProjectName: token.defaultProjectName } : {}),
          })),
          now,
          settings,
        ),
      );
    } catch (error) {
      result.unread.push({
        what: `registration tokens (${scope || "tenant"})`,
        why: describeForUser(error),
      });
    }

    const hosts: HostFacts[] = (await new EdgeHostStore(db).inScope(scope)).map((record) => ({
      uid: record.uid,
      name: record.name,
      projectUid: record.projectUid,
      state: record.state,
      ...(record.agentVersion ? { agentVersion: record.agentVersion } : {}),
      ...(record.clusterUid ? { clusterUid: record.clusterUid } : {}),
      ...(record.clusterName ? { clusterName: record.clusterName } : {}),
    }));
    result.risks.push(...agentSkewRisks(hosts));

    const unused = new Set(hosts.filter(readyUnused).map((host) => host.uid));
    const unusedSince = await marks.sync(
      "ready-unused",
      hosts.map((host) => host.uid),
      unused,
      now,
    );
    for (const host of hosts) {
      const risk = unusedRisk(host, unusedSince.get(host.uid), now, settings);
      if (risk) result.risks.push(risk);
    }

    const clusters = new Map<string, string>();
    for (const host of hosts) {
      if (host.clusterUid) clusters.set(host.clusterUid, host.projectUid);
    }
    const shells: Array<{
      uid: string;
      name: string;
      projectUid: string;
      state?: string;
      since?: number;
    }> = [];
    for (const [clusterUid, projectUid] of clusters) {
      try {
        const devices = await bulk(() => palette.clusterEdgeHosts(clusterUid, { projectUid }));
        for (const device of devices) {
          shells.push({
            uid: device.uid,
            name: device.name,
            projectUid: device.projectUid ?? projectUid,
            ...(device.shellState ? { state: device.shellState } : {}),
            ...(parseTime(device.shellSince) !== undefined
              ? { since: parseTime(device.shellSince) }
              : {}),
          });
        }
      } catch (error) {
        result.unread.push({ what: `hosts of cluster ${clusterUid}`, why: describeForUser(error) });
      }
    }
    const open = new Set(shells.filter(shellOpen).map((shell) => shell.uid));
    const openSince = await marks.sync(
      "shell-open",
      shells.map((shell) => shell.uid),
      open,
      now,
    );
    for (const shell of shells) {
      const risk = shellRisk(
        {
          hostUid: shell.uid,
          hostName: shell.name,
          projectUid: shell.projectUid,
          ...(shell.state ? { state: shell.state } : {}),
          ...(shell.since !== undefined ? { since: shell.since } : {}),
        },
        openSince.get(shell.uid),
        now,
        settings,
      );
      if (risk) result.risks.push(risk);
    }
  }
  return result;
}
