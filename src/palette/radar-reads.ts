import { z } from "zod";
import { clusterSummarySchema, listMetaSchema } from "./schemas.ts";

/**
 * What the radar (issue 28) reads of a cluster: its Kubernetes certificates
 * (`GET /v1/spectroclusters/{uid}/k8certificates`, v1MachineCertificates), the fleet's pending
 * repaves (`GET /v1/dashboard/spectroclusters/repaveStatus`, v1SpectroClustersSummary), the
 * profile versions it could move to (`GET /v1/spectroclusters/{uid}/profileUpdates`,
 * v1SpectroClusterProfileUpdates) and its backup history (`GET …/features/backup`,
 * v1ClusterBackup). Field names follow palette-sdk-go's spec; unknown fields are dropped, never
 * rejected, and every field may be missing or null. The client sends the request; this module
 * says what the answer means.
 */

const str = z.string().nullish();
const list = <T extends z.ZodTypeAny>(item: T) => z.array(item).nullish();

/** v1Certificate */
const certificateSchema = z.object({ name: str, expiry: str });

/** v1CertificateAuthority: its own expiry and the certificates it signed */
const certificateAuthoritySchema = z.object({
  name: str,
  expiry: str,
  certificates: list(certificateSchema),
});

/** v1MachineCertificates: per control-plane node */
export const machineCertificatesSchema = z.object({
  machineCertificates: list(
    z.object({ name: str, certificateAuthorities: list(certificateAuthoritySchema) }),
  ),
});

/** v1SpectroClusterProfileUpdates: the profile templates a cluster could move to */
export const profileUpdatesSchema = z.object({
  profiles: list(
    z.object({
      uid: str,
      name: str,
      profileVersion: str,
      type: str,
      cloudType: str,
    }),
  ),
});

/** v1ClusterBackup as the radar reads it: the schedule and each policy run's state */
export const backupHistorySchema = z.object({
  spec: z
    .object({
      config: z
        .object({
          backupLocationUid: str,
          backupLocationName: str,
          schedule: z.object({ scheduledRunTime: str }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .object({
      clusterBackupStatuses: list(
        z.object({
          backupRequestUid: str,
          state: str,
          actor: z.object({ actorType: str }).nullish(),
          backupStatusMeta: list(
            z.object({
              backupName: str,
              backupState: z.object({ state: str, msg: str, backupTime: str }).nullish(),
            }),
          ),
        }),
      ),
    })
    .nullish(),
});

/** v1SpectroClustersSummary as the repave list returns it */
export const repaveListSchema = z.object({
  items: list(clusterSummarySchema),
  listmeta: listMetaSchema.nullish(),
});

/** One certificate (or certificate authority) on one control-plane node. */
export interface CertificateExpiry {
  machine: string;
  name: string;
  /** epoch ms */
  expiresAt: number;
  authority: boolean;
}

export interface ProfileUpdate {
  uid: string;
  name: string;
  version?: string;
}

export interface BackupRun {
  name: string;
  /** Palette's words: Completed, Failed, PartiallyFailed, InProgress, … */
  state: string;
  /** epoch ms; undefined when Palette gives no time */
  at?: number;
  message?: string;
}

export interface BackupHistory {
  /** undefined: no backup policy (no location) */
  location?: string;
  /** the policy's cron expression (v1ClusterFeatureSchedule.scheduledRunTime) */
  schedule?: string;
  /** newest first */
  runs: BackupRun[];
}

export interface PendingRepave {
  uid: string;
  name: string;
  projectUid?: string;
}

const time = (value: string | null | undefined): number | undefined => {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
};

/** Every certificate and authority with an expiry Palette gave, earliest first. */
export function certificateExpiries(
  body: z.infer<typeof machineCertificatesSchema>,
): CertificateExpiry[] {
  const out: CertificateExpiry[] = [];
  for (const machine of body.machineCertificates ?? []) {
    const node = machine.name ?? "";
    for (const authority of machine.certificateAuthorities ?? []) {
      const caExpiry = time(authority.expiry);
      if (caExpiry !== undefined) {
        out.push({
          machine: node,
          name: authority.name ?? "",
          expiresAt: caExpiry,
          authority: true,
        });
      }
      for (const cert of authority.certificates ?? []) {
        const expiry = time(cert.expiry);
        if (expiry !== undefined) {
          out.push({ machine: node, name: cert.name ?? "", expiresAt: expiry, authority: false });
        }
      }
    }
  }
  return out.sort((a, b) => a.expiresAt - b.expiresAt);
}

export function profileUpdates(body: z.infer<typeof profileUpdatesSchema>): ProfileUpdate[] {
  return (body.profiles ?? []).flatMap((profile) =>
    profile.uid
      ? [
          {
            uid: profile.uid,
            name: profile.name ?? profile.uid,
            ...(profile.profileVersion ? { version: profile.profileVersion } : {}),
          },
        ]
      : [],
  );
}

/** The policy's runs newest first; each status meta entry with a backup state is one run. */
export function backupHistory(body: z.infer<typeof backupHistorySchema>): BackupHistory {
  const config = body.spec?.config;
  const runs: BackupRun[] = [];
  for (const status of body.status?.clusterBackupStatuses ?? []) {
    for (const meta of status.backupStatusMeta ?? []) {
      const state = meta.backupState?.state ?? status.state;
      if (!state) continue;
      const at = time(meta.backupState?.backupTime);
      runs.push({
        name: meta.backupName ?? "",
        state,
        ...(at !== undefined ? { at } : {}),
        ...(meta.backupState?.msg ? { message: meta.backupState.msg } : {}),
      });
    }
  }
  runs.sort((a, b) => (b.at ?? 0) - (a.at ?? 0));
  const location = config?.backupLocationName ?? config?.backupLocationUid ?? undefined;
  const schedule = config?.schedule?.scheduledRunTime ?? undefined;
  return {
    ...(location ? { location } : {}),
    ...(schedule ? { schedule } : {}),
    runs,
  };
}

/** one page of the repave list, as PaletteApi's `Page` (api.ts imports this module) */
export function pendingRepavePage(body: z.infer<typeof repaveListSchema>): {
  items: PendingRepave[];
  continue?: string;
} {
  const items = (body.items ?? []).flatMap((item) => {
    const uid = item.metadata?.uid;
    if (!uid) return [];
    const projectUid = item.specSummary?.projectMeta?.uid ?? item.metadata?.annotations?.projectUid;
    return [{ uid, name: item.metadata?.name ?? uid, ...(projectUid ? { projectUid } : {}) }];
  });
  const next = body.listmeta?.continue;
  return { items, ...(next ? { continue: next } : {}) };
}
