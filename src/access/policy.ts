import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { AccessPolicy, Permission } from "./types.ts";

/** The one Slack call the policy makes; a WebClient fits, and so does a test fake. */
export interface UsergroupsClient {
  usergroups: {
    users: {
      list(args: { usergroup: string }): Promise<unknown>;
    };
  };
}

export interface AccessPolicyOptions {
  /** ALLOW_LAUNCH: user IDs (U…/W…), user-group IDs (S…), or `*` */
  allowLaunch: string[];
  /** ALLOW_KUBECONFIG: same */
  allowKubeconfig: string[];
  /** ALLOW_SUBSCRIBE: same; unlike the others its default is `*` (see config.ts) */
  allowSubscribe?: string[];
  /** ALLOW_ACK: same; default `*` too (anyone in the channel may take an incident in hand) */
  allowAck?: string[];
  /** ALLOW_SCALE, ALLOW_MAINTENANCE, ALLOW_LOGS, ALLOW_BACKUP, ALLOW_UPGRADE, ALLOW_DELETE */
  allowChanges?: Partial<Record<ChangePermission, string[]>>;
  /** ALLOW_AUDIT: who may export the audit; nobody by default */
  allowAudit?: string[];
  /**
   * ALLOW_FREEZE: who may set a freeze and lift anyone's. Unset or empty: whoever may make some
   * change (FREEZE_DEFAULT), as before the variable existed.
   */
  allowFreeze?: string[];
  /** ALLOW_WHY: who may read `why` (Palette's audit of a cluster); everyone by default */
  allowWhy?: string[];
  client: UsergroupsClient;
  clock: Clock;
  /** how long a group's member list is trusted; default 5 minutes */
  cacheTtlMs?: number;
  logger: Logger;
}

const usergroupUsersResponse = z.object({
  ok: z.boolean(),
  error: z.string().optional(),
  users: z.array(z.string()).optional(),
});

const VARIABLE: Record<Permission, string> = {
  launch: "ALLOW_LAUNCH",
  kubeconfig: "ALLOW_KUBECONFIG",
  subscribe: "ALLOW_SUBSCRIBE",
  ack: "ALLOW_ACK",
  scale: "ALLOW_SCALE",
  maintenance: "ALLOW_MAINTENANCE",
  logs: "ALLOW_LOGS",
  backup: "ALLOW_BACKUP",
  upgrade: "ALLOW_UPGRADE",
  delete: "ALLOW_DELETE",
  audit: "ALLOW_AUDIT",
  freeze: "ALLOW_FREEZE",
  why: "ALLOW_WHY",
};

/**
 * Who may freeze when ALLOW_FREEZE is not set: anyone on a list that may change a cluster (or
 * launch one), asked each time, so a group's members follow Slack
 */
export const FREEZE_DEFAULT = [
  "scale",
  "maintenance",
  "logs",
  "backup",
  "upgrade",
  "delete",
  "launch",
] as const satisfies readonly Permission[];

type ChangePermission = Exclude<
  Permission,
  "launch" | "kubeconfig" | "subscribe" | "ack" | "audit" | "freeze" | "why"
>;

const isGroupId = (id: string) => id.startsWith("S");

/**
 * Deny by default. A user is allowed when the permission's list holds `*`, their user ID, or a
 * user group they belong to. Group membership is fetched from Slack and cached, because Slack
 * rate-limits `usergroups.users.list` (Tier 2) and a command should not wait on it every time.
 * A failed lookup denies (and is not cached, so the next try asks again).
 */
export function createAccessPolicy(options: AccessPolicyOptions): AccessPolicy {
  const ttl = options.cacheTtlMs ?? 5 * 60_000;
  const lists: Record<Permission, string[]> = {
    launch: options.allowLaunch,
    kubeconfig: options.allowKubeconfig,
    subscribe: options.allowSubscribe ?? ["*"],
    ack: options.allowAck ?? ["*"],
    // nobody by default: a change to a cluster is granted, never assumed
    scale: options.allowChanges?.scale ?? [],
    maintenance: options.allowChanges?.maintenance ?? [],
    logs: options.allowChanges?.logs ?? [],
    backup: options.allowChanges?.backup ?? [],
    upgrade: options.allowChanges?.upgrade ?? [],
    delete: options.allowChanges?.delete ?? [],
    // who did what is for the people who review it, granted by name
    audit: options.allowAudit ?? [],
    freeze: options.allowFreeze ?? [],
    // open as before: any reader of a cluster's trouble may ask why; ALLOW_WHY narrows it
    why: options.allowWhy ?? ["*"],
  };
  const freezeByDefault = lists.freeze.length === 0;
  const cache = new Map<string, { members: Set<string>; fetchedAt: number }>();
  const inFlight = new Map<string, Promise<Set<string> | undefined>>();

  async function fetchMembers(group: string): Promise<Set<string> | undefined> {
    try {
      const raw = await options.client.usergroups.users.list({ usergroup: group });
      const parsed = usergroupUsersResponse.safeParse(raw);
      if (!parsed.success || !parsed.data.ok) {
        const reason = parsed.success ? (parsed.data.error ?? "not ok") : "unexpected answer shape";
        options.logger.warn({ usergroup: group, reason }, "user-group lookup failed; denying");
        return undefined;
      }
      const members = new Set(parsed.data.users ?? []);
      cache.set(group, { members, fetchedAt: options.clock.now() });
      return members;
    } catch (error) {
      // WebClient errors carry `data.error` (e.g. missing_scope); the message alone is enough here.
      const reason = error instanceof Error ? error.message : String(error);
      options.logger.warn({ usergroup: group, reason }, "user-group lookup failed; denying");
      return undefined;
    }
  }

  async function membersOf(group: string): Promise<Set<string> | undefined> {
    const cached = cache.get(group);
    if (cached && options.clock.now() - cached.fetchedAt < ttl) return cached.members;
    const pending = inFlight.get(group);
    if (pending) return pending;
    const lookup = fetchMembers(group).finally(() => inFlight.delete(group));
    inFlight.set(group, lookup);
    return lookup;
  }

  async function listed(userId: string, permission: Permission): Promise<boolean> {
    const entries = lists[permission];
    if (entries.length === 0) return false;
    if (entries.includes("*") || entries.includes(userId)) return true;
    for (const group of entries.filter(isGroupId)) {
      const members = await membersOf(group);
      if (members?.has(userId)) return true;
    }
    return false;
  }

  return {
    async allows(userId, permission) {
      if (permission === "freeze" && freezeByDefault) {
        for (const other of FREEZE_DEFAULT) if (await listed(userId, other)) return true;
        return false;
      }
      return listed(userId, permission);
    },

    grantHint(permission) {
      if (permission === "freeze" && freezeByDefault) {
        return "Ask an admin to add you to `ALLOW_FREEZE`, or to a list that may change clusters (`ALLOW_SCALE`, `ALLOW_MAINTENANCE`, … or `ALLOW_LAUNCH`).";
      }
      const variable = VARIABLE[permission];
      const entries = lists[permission];
      if (entries.length === 0) {
        return `Nobody has this permission yet: an admin grants it by adding Slack user or user-group IDs to \`${variable}\`.`;
      }
      const ids = entries.map((id) => `\`${id}\``).join(", ");
      return `Ask an admin to add your user ID, or a user group you are in, to \`${variable}\` (today it grants ${ids}).`;
    },
  };
}
