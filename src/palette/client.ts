import { Secret } from "../secret.ts";
import type { ClusterSearch, Page, PaletteApi, PaletteIdentityApi, PaletteUser } from "./api.ts";
import {
  type ClientCore,
  createClientCore,
  nextToken,
  type PaletteClientOptions,
  parseResponse,
  seg,
} from "./client-core.ts";
import { cloudConfigPath, machinesPath } from "./cloud-config-path.ts";
import { describeEndpoint } from "./error-map.ts";
import { auditPage, auditsQuery, auditsSchema, clusterEventsQuery, eventPage } from "./history.ts";
import { decodeKubeconfig } from "./kubeconfig.ts";
import { MAX_PAGES, nextPageToken } from "./paging.ts";
import type { CloudAccountKind, Provider } from "./providers-list.ts";
import {
  backupHistory,
  backupHistorySchema,
  certificateExpiries,
  machineCertificatesSchema,
  pendingRepavePage,
  profileUpdates,
  profileUpdatesSchema,
  repaveListSchema,
} from "./radar-reads.ts";
import {
  alertComponentsSchema,
  apiKeyCreatedSchema,
  type ClusterSummary,
  cloudAccountsSchema,
  cloudConfigSchema,
  clusterBackupSchema,
  clusterGroupsSchema,
  clusterOverviewSchema,
  clusterProfileSchema,
  clusterProfilesMetadataSchema,
  clusterSchema,
  clusterStatusSchema,
  clustersSummarySchema,
  edgeHostsSchema,
  eventsSchema,
  logFetcherSchema,
  machinesSchema,
  type PaletteEvent,
  type PaletteUserRecord,
  projectsSummarySchema,
  rawMachinePoolsSchema,
  repaveSchema,
  uidSchema,
  userInfoSchema,
  userSchema,
  usersSummarySchema,
  workloadsSchema,
} from "./schemas.ts";
import { clampLimit, clusterSearchBody, MAX_PAGE, unfilteredSearchBody } from "./search-body.ts";
import type { PaletteClientStats } from "./stats.ts";

export type { PaletteClientOptions } from "./client-core.ts";

export type { PaletteClientEvent, PaletteClientStats } from "./stats.ts";

export interface PaletteClient extends PaletteApi, PaletteIdentityApi {
  close(): Promise<void>;
  stats(): PaletteClientStats;
}

/** how far back a log fetch reaches (v1ClusterLogFetcherRequest.duration; Palette's default) */
const LOG_HOURS = 10;

function timestampOf(event: PaletteEvent): number {
  const at = Date.parse(event.metadata?.creationTimestamp ?? "");
  return Number.isNaN(at) ? 0 : at;
}

/** A user record as the bot names its user: display name, else e-mail, else UID. */
function paletteUser(record: PaletteUserRecord): PaletteUser {
  const email = record.spec?.emailId ?? undefined;
  const full = [record.spec?.firstName, record.spec?.lastName].filter(Boolean).join(" ");
  return {
    uid: record.metadata.uid,
    name: record.metadata.name || full || email || record.metadata.uid,
    ...(email ? { email } : {}),
  };
}

export function createPaletteClient(options: PaletteClientOptions): PaletteClient {
  const core: ClientCore = createClientCore(options);
  const { call, write, exchange, counted, allPages } = core;

  async function searchClusters(query: ClusterSearch): Promise<Page<ClusterSummary>> {
    const result = await call(
      {
        method: "POST",
        path: "/v1/dashboard/spectroclusters/search",
        query: { limit: clampLimit(query.limit), continue: query.continue },
        scope: query,
        body: clusterSearchBody(query),
      },
      clustersSummarySchema,
    );
    return {
      items: result.items,
      continue: nextToken(result.listmeta?.continue),
      total: result.listmeta?.count ?? undefined,
    };
  }

  const client: PaletteClient = {
    searchClusters,

    async *searchAllClusters(query) {
      const seen = new Set<string>();
      let next: string | undefined;
      for (let page = 0; ; page++) {
        const result = await searchClusters({ ...query, limit: MAX_PAGE, continue: next });
        yield* result.items;
        next = nextPageToken(result.continue, seen, page, "cluster search");
        if (!next) return;
      }
    },

    getCluster: (uid, scope) =>
      call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}`,
          query: { ProjectUid: scope.projectUid },
          scope,
        },
        clusterSchema,
      ),

    getClusterOverview: (uid, scope) =>
      call(
        { method: "GET", path: `/v1/dashboard/spectroclusters/${seg(uid)}/overview`, scope },
        clusterOverviewSchema,
      ),

    async getClusterState(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/status`, scope },
        clusterStatusSchema,
      );
      return result.status?.state ?? undefined;
    },

    getCloudConfig: (kind, configUid, scope) =>
      call({ method: "GET", path: cloudConfigPath(kind, configUid), scope }, cloudConfigSchema),

    listMachines: (kind, configUid, pool, scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "GET",
            path: machinesPath(kind, configUid, pool),
            query: { limit: MAX_PAGE, continue: next },
            scope,
          },
          machinesSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    getWorkloads: (uid, namespaces, scope) =>
      call(
        {
          method: "POST",
          path: `/v1/dashboard/spectroclusters/${seg(uid)}/workloads`,
          scope,
          body: { filter: { namespaces } },
        },
        workloadsSchema,
      ),

    async getKubeconfig(uid, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/assets/kubeconfig`,
          scope,
          accept: "application/octet-stream",
        });
        return decodeKubeconfig(response.body);
      });
    },

    async listAlertComponents(scope) {
      const result = await call(
        { method: "GET", path: "/v1/projects/alerts", scope },
        alertComponentsSchema,
      );
      return result.components ?? [];
    },

    async listClusterEvents(uid, scope, limit = 20) {
      const wanted = Math.max(1, Math.floor(limit));
      const events: PaletteEvent[] = [];
      let next: string | undefined;
      for (let page = 0; page < MAX_PAGES && events.length < wanted; page++) {
        const result = await call(
          {
            method: "GET",
            path: `/v1/events/components/spectrocluster/${seg(uid)}`,
            query: { limit: Math.min(MAX_PAGE, wanted - events.length), continue: next },
            scope,
          },
          eventsSchema,
        );
        events.push(...result.items);
        const following = nextToken(result.listmeta?.continue);
        if (!following || following === next) break;
        next = following;
      }
      // newest first whatever order the server used; ties keep the server's order
      return events
        .map((event, index) => ({ event, index, at: timestampOf(event) }))
        .sort((a, b) => b.at - a.at || a.index - b.index)
        .slice(0, wanted)
        .map(({ event }) => event);
    },

    async clusterEventsPage(uid, scope, continueToken) {
      const path = `/v1/events/components/spectrocluster/${seg(uid)}`;
      const query = clusterEventsQuery(continueToken);
      return eventPage(await call({ method: "GET", path, query, scope }, eventsSchema));
    },

    async listAudits(query, scope) {
      const spec = { method: "GET" as const, path: "/v1/audits", query: auditsQuery(query), scope };
      return auditPage(await call(spec, auditsSchema));
    },

    listCloudAccounts: (kind: CloudAccountKind, scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "GET",
            path: `/v1/cloudaccounts/${seg(kind)}`,
            query: { limit: MAX_PAGE, continue: next },
            scope,
          },
          cloudAccountsSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    async listClusterProfiles(scope) {
      const result = await call(
        { method: "GET", path: "/v1/dashboard/clusterprofiles/metadata", scope },
        clusterProfilesMetadataSchema,
      );
      return result.items;
    },

    async listClusterGroups(scope) {
      const result = await call(
        { method: "GET", path: "/v1/clustergroups/hostCluster", scope },
        clusterGroupsSchema,
      );
      return result.summaries;
    },

    listEdgeHosts: (scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "POST",
            path: "/v1/dashboard/edgehosts/search",
            query: { limit: MAX_PAGE, continue: next },
            scope,
            body: unfilteredSearchBody(),
          },
          edgeHostsSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    listProjects: () =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "POST",
            path: "/v1/dashboard/projects",
            query: { limit: MAX_PAGE, continue: next },
            body: { filter: {}, sort: [] },
          },
          projectsSummarySchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    async createCluster(provider: Provider, body, scope) {
      const result = await call(
        {
          method: "POST",
          path: `/v1/spectroclusters/${seg(provider)}`,
          query: { ProjectUid: scope.projectUid },
          scope,
          body,
          requestClass: "create",
        },
        uidSchema,
      );
      return result.uid;
    },

    async deleteCluster(uid, scope) {
      return counted(async () => {
        await exchange({
          method: "DELETE",
          path: `/v1/spectroclusters/${seg(uid)}`,
          scope,
          requestClass: "delete",
        });
      });
    },

    async getMachinePool(kind, configUid, pool, scope) {
      const config = await call(
        { method: "GET", path: cloudConfigPath(kind, configUid), scope },
        rawMachinePoolsSchema,
      );
      return config.spec?.machinePoolConfig?.find((entry) => entry.name === pool);
    },

    updateMachinePool: (kind, configUid, pool, body, scope) =>
      write({
        method: "PUT",
        path: `${cloudConfigPath(kind, configUid)}/machinePools/${seg(pool)}`,
        scope,
        body,
      }),

    setMachineMaintenance: (kind, configUid, pool, machineUid, action, scope) =>
      write({
        method: "PUT",
        path: `${machinesPath(kind, configUid, pool)}/${seg(machineUid)}/maintenance`,
        scope,
        body: { action },
      }),

    async getRepaveStatus(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/repave/status`, scope },
        repaveSchema,
      );
      return {
        state: result.status?.state ?? undefined,
        reasons: (result.spec?.reasons ?? []).map((reason) => reason.message ?? reason.code ?? ""),
      };
    },

    async getBackup(uid, scope, requestUid) {
      const result = await call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/features/backup`,
          query: { backupRequestUid: requestUid },
          scope,
        },
        clusterBackupSchema,
      );
      const config = result.spec?.config;
      const request = (result.status?.clusterBackupStatuses ?? []).find(
        (entry) => requestUid !== undefined && entry.backupRequestUid === requestUid,
      );
      return {
        location: config?.backupLocationUid
          ? { uid: config.backupLocationUid, name: config.backupLocationName ?? "" }
          : undefined,
        ttlHours: config?.durationInHours ?? undefined,
        includeAllDisks: config?.includeAllDisks ?? undefined,
        includeClusterResources: config?.includeClusterResources ?? undefined,
        namespaces: config?.namespaces ?? [],
        requestState: request?.state ?? undefined,
      };
    },

    async backupNow(uid, config, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "POST",
          path: `/v1/spectroclusters/${seg(uid)}/features/backup/onDemand`,
          scope,
          body: config,
          requestClass: "create",
        });
        const endpoint = describeEndpoint(
          "POST",
          "/v1/spectroclusters/{uid}/features/backup/onDemand",
        );
        return parseResponse(response, uidSchema, endpoint).uid;
      });
    },

    async requestLogs(uid, lines, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "POST",
          path: `/v1/spectroclusters/${seg(uid)}/features/logFetcher`,
          scope,
          body: { mode: "cluster", noOfLines: lines, duration: LOG_HOURS },
          requestClass: "create",
        });
        const endpoint = describeEndpoint("POST", "/v1/spectroclusters/{uid}/features/logFetcher");
        return parseResponse(response, uidSchema, endpoint).uid;
      });
    },

    async getLogRequest(uid, requestUid, scope) {
      const result = await call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/features/logFetcher`,
          query: { requestId: requestUid },
          scope,
        },
        logFetcherSchema,
      );
      return {
        state: result.status?.state ?? undefined,
        fileName: result.spec?.log ?? undefined,
      };
    },

    async downloadLogs(requestUid, fileName, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/features/logFetcher/${seg(requestUid)}/download`,
          query: { fileName },
          scope,
          accept: "application/octet-stream",
        });
        return response.body;
      });
    },

    async getClusterProfile(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/clusterprofiles/${seg(uid)}`, scope },
        clusterProfileSchema,
      );
      return {
        uid: result.metadata?.uid ?? uid,
        name: result.metadata?.name ?? result.spec?.published?.name ?? "",
        version: result.spec?.version ?? undefined,
        versions: (result.spec?.versions ?? []).flatMap((entry) =>
          entry.uid && entry.version ? [{ uid: entry.uid, version: entry.version }] : [],
        ),
        packs: (result.spec?.published?.packs ?? []).flatMap((pack) =>
          pack.name ? [{ name: pack.name, tag: pack.tag ?? undefined }] : [],
        ),
      };
    },

    updateClusterProfiles: (uid, profiles, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/profiles`,
        scope,
        body: { profiles },
      }),

    getCertificates: async (uid, scope) =>
      certificateExpiries(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/k8certificates`, scope },
          machineCertificatesSchema,
        ),
      ),

    renewCertificates: (uid, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/k8certificates/renew`,
        scope,
      }),

    pendingRepavesPage: async (scope, continueToken) =>
      pendingRepavePage(
        await call(
          {
            method: "GET",
            path: "/v1/dashboard/spectroclusters/repaveStatus",
            query: { repaveState: "Pending", limit: MAX_PAGE, continue: continueToken },
            scope,
          },
          repaveListSchema,
        ),
      ),

    getProfileUpdates: async (uid, scope) =>
      profileUpdates(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/profileUpdates`, scope },
          profileUpdatesSchema,
        ),
      ),

    getBackupHistory: async (uid, scope) =>
      backupHistory(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/features/backup`, scope },
          backupHistorySchema,
        ),
      ),

    approveRepave: (uid, scope) =>
      write({ method: "PATCH", path: `/v1/spectroclusters/${seg(uid)}/repave/approve`, scope }),

    setLifecyclePause: (uid, pause, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/clusterConfig/lifecycleConfig`,
        scope,
        body: { lifecycleConfig: { pause } },
      }),

    async whoAmI() {
      const info = await call({ method: "GET", path: "/v1/users/info" }, userInfoSchema);
      return {
        userUid: info.userUid,
        orgName: info.orgName ?? undefined,
        tenantUid: info.tenantUid ?? undefined,
      };
    },

    async getUser(uid) {
      return paletteUser(await call({ method: "GET", path: `/v1/users/${seg(uid)}` }, userSchema));
    },

    async findUserByEmail(email) {
      const result = await call(
        {
          method: "POST",
          path: "/v1/users/summary",
          body: { filter: { emailId: { eq: email, ignoreCase: true } } },
        },
        usersSummarySchema,
      );
      const wanted = email.toLowerCase();
      const match = (result.items ?? []).find(
        (user) => user.spec?.emailId?.toLowerCase() === wanted,
      );
      return match ? paletteUser(match) : undefined;
    },

    async createApiKey(userUid, expiry, name) {
      const created = await call(
        {
          method: "POST",
          path: "/v1/apiKeys",
          body: { metadata: { name }, spec: { userUid, expiry: expiry.toISOString() } },
          requestClass: "create",
        },
        apiKeyCreatedSchema,
      );
      return { uid: created.uid, apiKey: new Secret(created.apiKey) };
    },

    async deleteApiKey(uid) {
      return counted(async () => {
        await exchange({
          method: "DELETE",
          path: `/v1/apiKeys/${seg(uid)}`,
          requestClass: "delete",
        });
      });
    },

    close: () => core.close(),
    stats: () => core.stats(),
  };
  return client;
}
