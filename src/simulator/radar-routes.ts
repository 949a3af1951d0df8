import type { ApiHandler } from "./api-context.ts";
import type { SimCluster } from "./fleet.ts";
import { ApiError, type Reply } from "./http-util.ts";
import { BadPageRequest, pageRequest, paginate } from "./paging.ts";
import { sees } from "./rbac.ts";
import { clusterSummary, iso } from "./render.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * What the radar reads (issue 28): each cluster's Kubernetes certificates, the fleet's pending
 * repaves, its profile updates and its backup history, on Palette's paths with the spec's
 * shapes. Seeded clusters get certificates that expire 40 to 340 days out, and about one in 50
 * within three weeks; one in 40 has a failed last backup and one in 20 a newer profile version.
 * A renewal moves every certificate a year on, RENEW_MS after the PATCH.
 */

const DAY = 86_400_000;
/** how long Palette takes to renew a cluster's control-plane certificates */
export const RENEW_MS = 5_000;

interface RadarFacts {
  /** epoch ms the cluster's certificates expire (every one, for simplicity: kubeadm's set) */
  certificatesExpireAt: number;
  renew?: { at: number };
  backupRuns: Array<{ name: string; state: string; at: number; msg?: string }>;
  /** the policy's cron; undefined: no schedule */
  backupSchedule?: string;
  profileUpdates: Array<{ uid: string; name: string; version: string }>;
}

/** The simulator's radar facts, made on first sight of a cluster from its seed. */
export class RadarBook {
  readonly #facts = new Map<string, RadarFacts>();

  constructor(
    private readonly state: SimState,
    /** how long a renewal takes, PATCH to new expiry */
    private readonly renewMs = RENEW_MS,
  ) {}

  facts(cluster: SimCluster): RadarFacts {
    let facts = this.#facts.get(cluster.uid);
    if (!facts) {
      const profile = this.state.fleet.profiles.find((p) => p.uid === cluster.profileUid);
      facts = seedFacts(cluster, this.state.now(), profile);
      this.#facts.set(cluster.uid, facts);
    }
    const renew = facts.renew;
    if (renew && this.state.now() >= renew.at + this.renewMs) {
      facts.certificatesExpireAt = renew.at + this.renewMs + 365 * DAY;
      facts.renew = undefined;
    }
    return facts;
  }

  setCertificateExpiry(uid: string, at: number): void {
    const cluster = this.#require(uid);
    const facts = this.facts(cluster);
    facts.certificatesExpireAt = at;
    facts.renew = undefined;
  }

  setBackupRuns(uid: string, schedule: string | undefined, runs: RadarFacts["backupRuns"]): void {
    const facts = this.facts(this.#require(uid));
    facts.backupRuns = [...runs];
    facts.backupSchedule = schedule;
  }

  setProfileUpdates(uid: string, updates: RadarFacts["profileUpdates"]): void {
    this.facts(this.#require(uid)).profileUpdates = [...updates];
  }

  #require(uid: string): SimCluster {
    const cluster = this.state.cluster(uid);
    if (!cluster) throw new Error(`simulator: no cluster ${uid}`);
    return cluster;
  }
}

/** "1.0.0" → "1.1.0": the next minor version of a profile, for its seeded update */
function nextMinor(version: string): string {
  const [major = "1", minor = "0"] = version.split(".");
  return `${major}.${Number(minor) + 1 || 1}.0`;
}

function seedFacts(
  cluster: SimCluster,
  now: number,
  profile: { name: string; version: string } | undefined,
): RadarFacts {
  const seed = cluster.detailSeed;
  const near = seed % 50 === 7;
  const days = near ? 5 + (seed % 17) : 40 + (seed % 300);
  const failed = seed % 40 === 3;
  const backupRuns = [
    { name: `daily-${cluster.name}-2`, state: failed ? "Failed" : "Completed", at: now - DAY / 2 },
    { name: `daily-${cluster.name}-1`, state: "Completed", at: now - DAY - DAY / 2 },
  ].map((run) =>
    run.state === "Failed" ? { ...run, msg: "backup storage location unavailable" } : run,
  );
  return {
    certificatesExpireAt: now + days * DAY + (seed % 3_600) * 1000,
    backupRuns,
    backupSchedule: "0 3 * * *",
    profileUpdates:
      seed % 20 === 11
        ? [
            {
              uid: `${cluster.profileUid}-next`,
              name: profile?.name ?? "cluster profile",
              version: nextMinor(profile?.version ?? "1.0.0"),
            },
          ]
        : [],
  };
}

const ok = (body: unknown): Reply => ({ status: 200, body });

export function addRadarRoutes(
  router: Router<ApiHandler>,
  deps: { state: SimState; book: RadarBook },
): void {
  const { state, book } = deps;
  const live = (uid: string, projectUid: string | undefined): SimCluster => {
    const cluster = state.cluster(uid);
    if (
      !cluster ||
      (projectUid && cluster.projectUid !== projectUid) ||
      state.condition(cluster).state === "Deleted"
    ) {
      throw new ApiError(404, "ResourceNotFound", `Cluster '${uid}' not found`);
    }
    return cluster;
  };

  router.add("GET", "/v1/spectroclusters/:uid/k8certificates", (ctx) => {
    const cluster = live(ctx.params.uid ?? "", ctx.projectUid);
    const expiry = iso(book.facts(cluster).certificatesExpireAt);
    const caExpiry = iso(cluster.createdAt + 10 * 365 * DAY);
    const controlPlanes = Math.max(1, cluster.pools.find((pool) => pool.isControlPlane)?.size ?? 1);
    const leaf = (names: string[]) => names.map((name) => ({ name, expiry }));
    return ok({
      machineCertificates: Array.from({ length: controlPlanes }, (_, index) => ({
        name: `${cluster.name}-cp-${index}`,
        certificateAuthorities: [
          {
            name: "ca",
            expiry: caExpiry,
            certificates: leaf([
              "apiserver",
              "apiserver-kubelet-client",
              "admin.conf",
              "controller-manager.conf",
              "scheduler.conf",
            ]),
          },
          { name: "etcd-ca", expiry: caExpiry, certificates: leaf(["apiserver-etcd-client"]) },
          { name: "front-proxy-ca", expiry: caExpiry, certificates: leaf(["front-proxy-client"]) },
        ],
      })),
    });
  });

  router.add("PATCH", "/v1/spectroclusters/:uid/k8certificates/renew", (ctx) => {
    const cluster = live(ctx.params.uid ?? "", ctx.projectUid);
    const facts = book.facts(cluster);
    facts.renew ??= { at: state.now() };
    cluster.events.push({
      uid: `ev-renew-${cluster.uid.slice(0, 12)}-${cluster.events.length}`,
      at: state.now(),
      reason: "CertificateRenewal",
      message: "Kubernetes certificates of the control plane set for renewal",
      severity: "Normal",
    });
    return { status: 204 };
  });

  router.add("GET", "/v1/dashboard/spectroclusters/repaveStatus", (ctx) => {
    const wanted = ctx.query.get("repaveState") || "Pending";
    if (!["Pending", "Approved", "Reverted"].includes(wanted)) {
      throw new ApiError(
        400,
        "InvalidRequest",
        `repaveState must be Pending, Approved or Reverted`,
      );
    }
    let page: { offset: number; limit: number };
    try {
      page = pageRequest(ctx.query);
    } catch (error) {
      if (error instanceof BadPageRequest) {
        throw new ApiError(400, "InvalidPageRequest", error.message);
      }
      throw error;
    }
    const matching = state
      .clusters(ctx.projectUid)
      .filter(
        (cluster) =>
          cluster.repave?.state === wanted &&
          (ctx.projectUid !== undefined ||
            sees(ctx.caller, cluster.projectUid) ||
            ctx.caller.tenantAdmin),
      )
      .sort((a, b) => a.uid.localeCompare(b.uid));
    const { items, listmeta } = paginate(matching, page);
    return ok({
      items: items.map((cluster) =>
        clusterSummary(state.fleet, cluster, state.condition(cluster), state.now()),
      ),
      listmeta,
    });
  });

  router.add("GET", "/v1/spectroclusters/:uid/profileUpdates", (ctx) => {
    const cluster = live(ctx.params.uid ?? "", ctx.projectUid);
    return ok({
      profiles: book.facts(cluster).profileUpdates.map((update) => ({
        uid: update.uid,
        name: update.name,
        profileVersion: update.version,
        type: "cluster",
        cloudType: cluster.provider,
      })),
    });
  });
}

/**
 * The backup history the radar reads (GET …/features/backup): the policy's scheduled runs
 * merged into the answer the day-2 route gives, so both verbs see one cluster.
 */
export function scheduledBackupStatuses(book: RadarBook, cluster: SimCluster) {
  const facts = book.facts(cluster);
  return {
    schedule: facts.backupSchedule,
    statuses: facts.backupRuns.length
      ? [
          {
            backupRequestUid: `sched-${cluster.uid.slice(0, 12)}`,
            actor: { actorType: "system" },
            state: facts.backupRuns[0]?.state ?? "Completed",
            backupStatusMeta: facts.backupRuns.map((run) => ({
              backupName: run.name,
              backupState: {
                state: run.state,
                backupTime: iso(run.at),
                ...(run.msg ? { msg: run.msg } : {}),
              },
            })),
          },
        ]
      : [],
  };
}
