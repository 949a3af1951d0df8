import type { Secret } from "../secret.ts";
import type { AuditQuery, PaletteAudit } from "./history.ts";
import type { CloudAccountKind, Provider } from "./providers-list.ts";
import type {
  BackupHistory,
  CertificateExpiry,
  PendingRepave,
  ProfileUpdate,
} from "./radar-reads.ts";
import type {
  AlertComponent,
  CloudAccount,
  CloudConfig,
  Cluster,
  ClusterGroup,
  ClusterOverview,
  ClusterProfileMeta,
  ClusterSummary,
  EdgeHost,
  Machine,
  PaletteEvent,
  ProjectSummary,
  Workloads,
} from "./schemas.ts";
import type { ValueCondition } from "./search-body.ts";

/**
 * The Palette API as the rest of the bot sees it. Only `src/palette/` implements it over HTTP;
 * commands, views and the poller get it injected, so tests can use the simulator or a fake.
 *
 * `projectUid` undefined means tenant scope. Every method throws `PaletteError` or
 * `PaletteSchemaError` (src/palette/errors.ts) and nothing else.
 */
export interface Scope {
  projectUid?: string;
}

export interface Page<T> {
  items: T[];
  /** opaque `listmeta.continue` token; undefined when this is the last page */
  continue?: string;
  /** `listmeta.count`, the total when Palette reports it */
  total?: number;
}

export interface ClusterSearch extends Scope {
  /** tags as typed by users: `dev` (a plain tag) or `team:core` (key:value); empty = every cluster */
  tags?: string[];
  /** only clusters with exactly this name: a name look-up costs one search, not a walk */
  name?: string;
  /** only clusters with one of these exact names (a page of look-ups in one search) */
  names?: string[];
  /** only clusters in (or, negated, not in) these states */
  state?: ValueCondition;
  /** only clusters with (or, negated, without) these health states */
  health?: ValueCondition;
  /** at most 50 (Palette's maximum) */
  limit?: number;
  continue?: string;
}

/** A Palette user as the bot names them. */
export interface PaletteUser {
  uid: string;
  /** the display name, else the e-mail, else the UID */
  name: string;
  email?: string;
}

/**
 * Palette's identity endpoints (issue 20: a Slack user acting as their own Palette user). Apart
 * from PaletteApi so the many fakes of the read API need not grow them.
 */
export interface PaletteIdentityApi {
  /** GET /v1/users/info: whose credential this client holds */
  whoAmI(): Promise<{ userUid: string; orgName?: string; tenantUid?: string }>;
  /** GET /v1/users/{uid} */
  getUser(uid: string): Promise<PaletteUser>;
  /** POST /v1/users/summary filtered by e-mail (a tenant admin's call) */
  findUserByEmail(email: string): Promise<PaletteUser | undefined>;
  /** POST /v1/apiKeys for a user, expiring at `expiry`; the key comes back as a Secret */
  createApiKey(
    userUid: string,
    expiry: Date,
    name: string,
  ): Promise<{ uid: string; apiKey: Secret }>;
  /** DELETE /v1/apiKeys/{uid} */
  deleteApiKey(uid: string): Promise<void>;
  /** GET /v1/apiKeys: the UIDs of the keys named exactly `name` (the bot names each it mints) */
  apiKeysNamed(name: string): Promise<string[]>;
}

/** One version of a cluster profile, with its siblings. */
export interface ClusterProfileInfo {
  uid: string;
  name: string;
  version?: string;
  versions: Array<{ uid: string; version: string }>;
  packs: Array<{ name: string; tag?: string }>;
}

/** What the bot reads of a cluster's backup feature. */
export interface ClusterBackupInfo {
  /** the policy's location; undefined: no backup location is configured */
  location?: { uid: string; name: string };
  ttlHours?: number;
  includeAllDisks?: boolean;
  includeClusterResources?: boolean;
  namespaces: string[];
  /** the state of the on-demand backup asked about, if any */
  requestState?: string;
}

export interface PaletteApi {
  /** POST /v1/dashboard/spectroclusters/search: one page */
  searchClusters(query: ClusterSearch): Promise<Page<ClusterSummary>>;
  /** the same, following `listmeta.continue` until it is empty (pages of 50) */
  searchAllClusters(
    query: Omit<ClusterSearch, "continue" | "limit">,
  ): AsyncIterable<ClusterSummary>;
  /** GET /v1/spectroclusters/{uid} */
  getCluster(uid: string, scope: Scope): Promise<Cluster>;
  /** GET /v1/dashboard/spectroclusters/{uid}/overview: health, Kubernetes version */
  getClusterOverview(uid: string, scope: Scope): Promise<ClusterOverview>;
  /** GET /v1/spectroclusters/{uid}/status */
  getClusterState(uid: string, scope: Scope): Promise<string | undefined>;
  /** GET /v1/cloudconfigs/{kind}/{uid}, or /v1/cloudconfigs/cloudTypes/{kind}/{uid} for a custom cloud type */
  getCloudConfig(kind: string, configUid: string, scope: Scope): Promise<CloudConfig>;
  /** GET /v1/cloudconfigs/{kind}/{uid}/machinePools/{pool}/machines, every page */
  listMachines(kind: string, configUid: string, pool: string, scope: Scope): Promise<Machine[]>;
  /** POST /v1/dashboard/spectroclusters/{uid}/workloads with filter.namespaces */
  getWorkloads(uid: string, namespaces: string[], scope: Scope): Promise<Workloads>;
  /** GET /v1/spectroclusters/{uid}/assets/kubeconfig as bytes (base64 bodies decoded) */
  getKubeconfig(uid: string, scope: Scope): Promise<Buffer>;
  /** GET /v1/projects/alerts: the alert kinds the project supports */
  listAlertComponents(scope: Scope): Promise<AlertComponent[]>;
  /** GET /v1/events/components/spectrocluster/{uid}: newest first, at most `limit` */
  listClusterEvents(uid: string, scope: Scope, limit?: number): Promise<PaletteEvent[]>;
  /** the same, one page of 50 newest first (`orderBy`), for a reader that pages by time */
  clusterEventsPage(uid: string, scope: Scope, continueToken?: string): Promise<Page<PaletteEvent>>;
  /** GET /v1/audits: one page of Palette's audit log with these filters (src/palette/history.ts) */
  listAudits(query: AuditQuery, scope: Scope): Promise<Page<PaletteAudit>>;
  /** GET /v1/cloudaccounts/{kind}, every page */
  listCloudAccounts(kind: CloudAccountKind, scope: Scope): Promise<CloudAccount[]>;
  /** GET /v1/dashboard/clusterprofiles/metadata */
  listClusterProfiles(scope: Scope): Promise<ClusterProfileMeta[]>;
  /** GET /v1/clustergroups/hostCluster */
  listClusterGroups(scope: Scope): Promise<ClusterGroup[]>;
  /** POST /v1/dashboard/edgehosts/search, every page */
  listEdgeHosts(scope: Scope): Promise<EdgeHost[]>;
  /** POST /v1/dashboard/projects, every page */
  listProjects(): Promise<ProjectSummary[]>;
  /** POST /v1/spectroclusters/{provider}?ProjectUid=… → the new cluster's uid */
  createCluster(provider: Provider, body: unknown, scope: Scope): Promise<string>;
  /** DELETE /v1/spectroclusters/{uid} (never forceDelete) */
  deleteCluster(uid: string, scope: Scope): Promise<void>;
  /**
   * One machine pool of a cloud config as Palette returned it (GET /v1/cloudconfigs/{kind}/{uid},
   * `spec.machinePoolConfig[name]`), every field kept so a write can send back what it does not
   * change; undefined when the config has no such pool
   */
  getMachinePool(
    kind: string,
    configUid: string,
    pool: string,
    scope: Scope,
  ): Promise<Record<string, unknown> | undefined>;
  /** PUT …/machinePools/{pool}/machines/{machineUid}/maintenance (v1MachineMaintenance) */
  setMachineMaintenance(
    kind: string,
    configUid: string,
    pool: string,
    machineUid: string,
    action: "cordon" | "uncordon",
    scope: Scope,
  ): Promise<void>;
  /** GET /v1/spectroclusters/{uid}/repave/status: Pending, Approved, Reverted (none: nothing held) */
  getRepaveStatus(uid: string, scope: Scope): Promise<{ state?: string; reasons: string[] }>;
  /** PATCH /v1/spectroclusters/{uid}/repave/approve */
  approveRepave(uid: string, scope: Scope): Promise<void>;
  /**
   * GET /v1/spectroclusters/{uid}/features/backup: the backup policy's location and settings,
   * and (with a request uid) that on-demand backup's state
   */
  getBackup(uid: string, scope: Scope, requestUid?: string): Promise<ClusterBackupInfo>;
  /** POST /v1/spectroclusters/{uid}/features/backup/onDemand → the backup request's uid */
  backupNow(uid: string, config: Record<string, unknown>, scope: Scope): Promise<string>;
  /** POST /v1/spectroclusters/{uid}/features/logFetcher (v1ClusterLogFetcherRequest) → request uid */
  requestLogs(uid: string, lines: number, scope: Scope): Promise<string>;
  /** GET /v1/spectroclusters/{uid}/features/logFetcher?requestId=…: its state and file name */
  getLogRequest(
    uid: string,
    requestUid: string,
    scope: Scope,
  ): Promise<{ state?: string; fileName?: string }>;
  /** GET /v1/spectroclusters/features/logFetcher/{requestUid}/download?fileName=… as bytes */
  downloadLogs(requestUid: string, fileName: string, scope: Scope): Promise<Buffer>;
  /** GET /v1/clusterprofiles/{uid}: the version, every version of the profile, and its packs */
  getClusterProfile(uid: string, scope: Scope): Promise<ClusterProfileInfo>;
  /** PATCH /v1/spectroclusters/{uid}/profiles (v1SpectroClusterProfiles): profile versions swapped */
  updateClusterProfiles(
    uid: string,
    profiles: Array<{ uid: string; replaceWithProfile: string }>,
    scope: Scope,
  ): Promise<void>;
  /** PATCH /v1/spectroclusters/{uid}/clusterConfig/lifecycleConfig (virtual clusters) */
  setLifecyclePause(uid: string, pause: boolean, scope: Scope): Promise<void>;
  /** GET /v1/spectroclusters/{uid}/k8certificates: every certificate's expiry, earliest first */
  getCertificates(uid: string, scope: Scope): Promise<CertificateExpiry[]>;
  /** PATCH /v1/spectroclusters/{uid}/k8certificates/renew */
  renewCertificates(uid: string, scope: Scope): Promise<void>;
  /** GET /v1/dashboard/spectroclusters/repaveStatus?repaveState=Pending: one page of the fleet's */
  pendingRepavesPage(scope: Scope, continueToken?: string): Promise<Page<PendingRepave>>;
  /** GET /v1/spectroclusters/{uid}/profileUpdates: newer profile versions the cluster could use */
  getProfileUpdates(uid: string, scope: Scope): Promise<ProfileUpdate[]>;
  /** GET /v1/spectroclusters/{uid}/features/backup: the policy's schedule and runs, newest first */
  getBackupHistory(uid: string, scope: Scope): Promise<BackupHistory>;
  /** PUT /v1/cloudconfigs/{kind}/{uid}/machinePools/{pool} (v1<Cloud>MachinePoolConfigEntity) */
  updateMachinePool(
    kind: string,
    configUid: string,
    pool: string,
    body: unknown,
    scope: Scope,
  ): Promise<void>;
}
