import type { z } from "zod";
import { type Clock, systemClock } from "../clock.ts";
import type { PaletteCredentials } from "../config.ts";
import type { Logger } from "../log.ts";
import { Secret } from "../secret.ts";
import type {
  ClusterSearch,
  Page,
  PaletteApi,
  PaletteIdentityApi,
  PaletteUser,
  Scope,
} from "./api.ts";
import { TokenKeeper } from "./auth.ts";
import { cloudConfigPath, machinesPath } from "./cloud-config-path.ts";
import { describeEndpoint, errorFromException, errorFromResponse } from "./error-map.ts";
import { PaletteError, PaletteSchemaError } from "./errors.ts";
import { auditPage, auditsQuery, auditsSchema, clusterEventsQuery, eventPage } from "./history.ts";
import {
  createUndiciTransport,
  type Transport,
  type TransportOptions,
  type WireRequest,
  type WireResponse,
} from "./http.ts";
import { decodeKubeconfig } from "./kubeconfig.ts";
import { RequestPacer, realSleep, type Sleep } from "./limiter.ts";
import { MAX_PAGES, nextPageToken } from "./paging.ts";
import { parseBody, parseJson } from "./parse.ts";
import { requestPriority } from "./priority.ts";
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
import { prefixLabel, ruleFor } from "./rate-limits.ts";
import {
  type BackoffOptions,
  DEFAULT_BACKOFF,
  isRetryable,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  type RequestClass,
  retryDelay,
} from "./retry.ts";
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
  userTokenSchema,
  workloadsSchema,
} from "./schemas.ts";
import { clampLimit, clusterSearchBody, MAX_PAGE, unfilteredSearchBody } from "./search-body.ts";
import {
  copyStats,
  emptyStats,
  type PaletteClientEvent,
  type PaletteClientStats,
} from "./stats.ts";

export type { PaletteClientEvent, PaletteClientStats } from "./stats.ts";

export interface PaletteClientOptions {
  /** e.g. https://api.spectrocloud.com (a trailing slash and a path prefix are fine) */
  baseUrl: string;
  credentials: PaletteCredentials;
  logger: Logger;
  /** drives the rate limiter; default the system clock */
  clock?: Clock;
  /** how the limiter and the backoff wait; default setTimeout. Tests pass a recorder. */
  sleep?: Sleep;
  /** node-cron expression of the token refresh; default every 10 minutes */
  tokenRefreshSchedule?: string;
  /** retries after the first try, for retryable failures; default 3 */
  retries?: number;
  /** pace requests at Palette's documented limits; default true */
  rateLimit?: boolean;
  connectTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** the undici pool's settings (connections, time-outs); the two fields above win */
  dispatcherOptions?: TransportOptions;
  backoff?: Partial<BackoffOptions>;
  onEvent?: (event: PaletteClientEvent) => void;
  /** replaces the undici pool (unit tests of the call logic) */
  transport?: Transport;
  /** jitter source; default Math.random */
  random?: () => number;
}

export interface PaletteClient extends PaletteApi, PaletteIdentityApi {
  close(): Promise<void>;
  stats(): PaletteClientStats;
}

interface CallSpec {
  method: WireRequest["method"];
  path: string;
  query?: Record<string, string | number | undefined>;
  scope?: Scope;
  body?: unknown;
  accept?: string;
  requestClass?: RequestClass;
  /** auth calls carry no credential header and never trigger a re-login */
  anonymous?: boolean;
  /** an auth call's own token: the refresh sends the token it refreshes, as the Go SDK does */
  token?: string;
  /** overrides the client's retry bound for this call */
  retries?: number;
}

const seg = (value: string): string => encodeURIComponent(value);

/** how far back a log fetch reaches (v1ClusterLogFetcherRequest.duration; Palette's default) */
const LOG_HOURS = 10;

function withQuery(path: string, query: CallSpec["query"]): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

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
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const retries = Math.max(0, options.retries ?? 3);
  const backoff: BackoffOptions = { ...DEFAULT_BACKOFF, ...options.backoff };
  const random = options.random ?? Math.random;
  const logger = options.logger;
  const onEvent = options.onEvent ?? (() => {});
  const limiter = options.rateLimit === false ? undefined : new RequestPacer({ clock, sleep });
  const transport =
    options.transport ??
    createUndiciTransport(options.baseUrl, {
      ...options.dispatcherOptions,
      connectTimeoutMs: options.connectTimeoutMs ?? options.dispatcherOptions?.connectTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs ?? options.dispatcherOptions?.bodyTimeoutMs,
    });
  const counters = emptyStats();
  const credentials = options.credentials;

  const emit = (event: PaletteClientEvent): void => {
    try {
      onEvent(event);
    } catch (error) {
      logger.warn({ err: error }, "palette client onEvent hook threw");
    }
  };

  const countFailure = (error: unknown): void => {
    const key =
      error instanceof PaletteError
        ? error.kind
        : error instanceof PaletteSchemaError
          ? "schema"
          : undefined;
    if (key) counters.failures[key] = (counters.failures[key] ?? 0) + 1;
  };

  /** One HTTP exchange, paced; a transport exception becomes a PaletteError. */
  async function sendOnce(request: WireRequest, endpoint: string): Promise<WireResponse> {
    const rule = ruleFor(request.path);
    const prefix = prefixLabel(rule);
    const waitedMs = limiter ? await limiter.acquire(request.path, requestPriority()) : 0;
    counters.throttledMs += waitedMs;
    counters.calls[prefix] = (counters.calls[prefix] ?? 0) + 1;
    const started = performance.now();
    let status = 0;
    try {
      const response = await transport.send(request);
      status = response.status;
      if (status === 429) counters.rateLimited++;
      return response;
    } catch (error) {
      throw errorFromException(error, endpoint);
    } finally {
      emit({
        type: "request",
        method: request.method,
        prefix,
        endpoint,
        status,
        durationMs: performance.now() - started,
        waitedMs,
      });
    }
  }

  async function credentialHeaders(
    spec: CallSpec,
  ): Promise<{ headers: Record<string, string>; token?: string }> {
    if (spec.anonymous) return { headers: spec.token ? { Authorization: spec.token } : {} };
    if (credentials.kind === "apiKey") return { headers: { apiKey: credentials.apiKey.reveal() } };
    const token = await keeper!.token();
    return { headers: { Authorization: token }, token };
  }

  /** A call with pacing, credentials, one re-login on 401 and bounded retries. */
  async function exchange(spec: CallSpec): Promise<WireResponse> {
    const path = withQuery(spec.path, spec.query);
    const endpoint = describeEndpoint(spec.method, spec.path);
    const requestClass = spec.requestClass ?? "read";
    const bound = spec.retries ?? retries;
    let reauthenticated = false;
    let attempt = 0;
    let sentBefore = false;
    for (;;) {
      const { headers: auth, token } = await credentialHeaders(spec);
      const headers: Record<string, string> = {
        Accept: spec.accept ?? "application/json",
        "User-Agent": "palette-chatops",
        ...auth,
      };
      if (spec.scope?.projectUid) headers.ProjectUid = spec.scope.projectUid;
      let body: string | undefined;
      if (spec.body !== undefined) {
        body = JSON.stringify(spec.body);
        headers["Content-Type"] = "application/json";
      }
      let failure: PaletteError;
      let retryAfterMs: number | undefined;
      try {
        const response = await sendOnce({ method: spec.method, path, headers, body }, endpoint);
        if (response.status >= 200 && response.status < 300) return response;
        // A delete whose earlier attempt may have gone through finds nothing left: done.
        if (requestClass === "delete" && sentBefore && response.status === 404) return response;
        if (response.status === 401 && token !== undefined && !reauthenticated && keeper) {
          reauthenticated = true;
          counters.reauthentications++;
          await keeper.reauthenticate(token);
          continue;
        }
        failure = errorFromResponse(response.status, response.body.toString("utf8"), endpoint);
        retryAfterMs = parseRetryAfter(response.headers["retry-after"], clock.now());
      } catch (error) {
        if (error instanceof PaletteSchemaError) throw error;
        failure = errorFromException(error, endpoint);
      }
      sentBefore = true;
      const canRetry =
        attempt < bound &&
        isRetryable(failure, requestClass) &&
        (retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS);
      if (!canRetry) throw failure;
      const delayMs = retryDelay(attempt, retryAfterMs, backoff, random);
      attempt++;
      counters.retries++;
      emit({
        type: "retry",
        prefix: prefixLabel(ruleFor(path)),
        endpoint,
        attempt,
        delayMs,
        reason: failure.kind,
      });
      logger.warn(
        { endpoint, status: failure.status, kind: failure.kind, attempt, delayMs },
        "palette call failed, retrying",
      );
      await sleep(delayMs);
    }
  }

  async function call<S extends z.ZodType>(spec: CallSpec, schema: S): Promise<z.infer<S>> {
    try {
      const response = await exchange(spec);
      const endpoint = describeEndpoint(spec.method, spec.path);
      return parseBody(schema, parseJson(response.body.toString("utf8"), endpoint), endpoint);
    } catch (error) {
      countFailure(error);
      throw error;
    }
  }

  /**
   * A change (day-2): sent once. Not idempotent if another change landed between, so only a
   * 429 or 503 (Palette did not take it) is tried again, as a create is.
   */
  async function write(spec: Omit<CallSpec, "requestClass">): Promise<void> {
    try {
      await exchange({ ...spec, requestClass: "create" });
    } catch (error) {
      countFailure(error);
      throw error;
    }
  }

  /** Every page of a `listmeta.continue` list. */
  async function allPages<T>(
    fetchPage: (continueToken: string | undefined) => Promise<{ items: T[]; continue?: string }>,
  ): Promise<T[]> {
    const all: T[] = [];
    const seen = new Set<string>();
    let next: string | undefined;
    for (let page = 0; ; page++) {
      const result = await fetchPage(next);
      all.push(...result.items);
      next = nextPageToken(result.continue, seen, page, "paged");
      if (!next) return all;
    }
  }

  const keeper =
    credentials.kind === "serviceAccount"
      ? new TokenKeeper({
          logger,
          clock,
          schedule: options.tokenRefreshSchedule,
          onEvent: (event) => {
            if (event.type === "login") {
              if (event.ok) counters.logins++;
              else counters.loginFailures++;
              emit({ type: "login", ok: event.ok, reason: event.reason });
            } else {
              if (event.ok) counters.refreshes++;
              else counters.refreshFailures++;
              emit({ type: "refresh", ok: event.ok });
            }
          },
          source: {
            login: async () =>
              (
                await call(
                  {
                    method: "POST",
                    path: "/v1/auth/authenticate",
                    anonymous: true,
                    body: {
                      emailId: credentials.email,
                      org: credentials.org,
                      password: credentials.password.reveal(),
                    },
                  },
                  userTokenSchema,
                )
              ).Authorization,
            refresh: async (token) =>
              (
                await call(
                  {
                    method: "GET",
                    path: `/v1/auth/refresh/${seg(token)}`,
                    anonymous: true,
                    token,
                    // a failed refresh falls back to a (retried) login at once
                    retries: 0,
                  },
                  userTokenSchema,
                )
              ).Authorization,
          },
        })
      : undefined;
  keeper?.start();

  const nextToken = (value: string | null | undefined): string | undefined => value || undefined;

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
      try {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/assets/kubeconfig`,
          scope,
          accept: "application/octet-stream",
        });
        return decodeKubeconfig(response.body);
      } catch (error) {
        countFailure(error);
        throw error;
      }
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
      try {
        await exchange({
          method: "DELETE",
          path: `/v1/spectroclusters/${seg(uid)}`,
          scope,
          requestClass: "delete",
        });
      } catch (error) {
        countFailure(error);
        throw error;
      }
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
      try {
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
        return parseBody(uidSchema, parseJson(response.body.toString("utf8"), endpoint), endpoint)
          .uid;
      } catch (error) {
        countFailure(error);
        throw error;
      }
    },

    async requestLogs(uid, lines, scope) {
      try {
        const response = await exchange({
          method: "POST",
          path: `/v1/spectroclusters/${seg(uid)}/features/logFetcher`,
          scope,
          body: { mode: "cluster", noOfLines: lines, duration: LOG_HOURS },
          requestClass: "create",
        });
        const endpoint = describeEndpoint("POST", "/v1/spectroclusters/{uid}/features/logFetcher");
        return parseBody(uidSchema, parseJson(response.body.toString("utf8"), endpoint), endpoint)
          .uid;
      } catch (error) {
        countFailure(error);
        throw error;
      }
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
      try {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/features/logFetcher/${seg(requestUid)}/download`,
          query: { fileName },
          scope,
          accept: "application/octet-stream",
        });
        return response.body;
      } catch (error) {
        countFailure(error);
        throw error;
      }
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
      try {
        await exchange({
          method: "DELETE",
          path: `/v1/apiKeys/${seg(uid)}`,
          requestClass: "delete",
        });
      } catch (error) {
        countFailure(error);
        throw error;
      }
    },

    async close() {
      await keeper?.stop();
      await transport.close();
    },

    stats: () => copyStats(counters),
  };
  return client;
}
