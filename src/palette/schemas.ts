import { z } from "zod";

/**
 * zod schemas for every Palette response the bot reads, built from the real definitions in
 * `test/fixtures/palette-api/openapi-subset.json` (definition names in the comments). They keep only
 * the fields the bot uses: unknown fields are dropped, never rejected, and every field is
 * optional and nullable because the Go API omits empty values and sometimes sends null.
 */

const str = z.string().nullish();
const int = z.number().nullish();
const bool = z.boolean().nullish();
const stringMap = z.record(z.string(), z.string().nullable()).nullish();
const list = <T extends z.ZodTypeAny>(item: T) => z.array(item).nullish();

/** v1ListMetaData */
export const listMetaSchema = z.object({
  continue: str,
  count: int,
  limit: int,
  offset: int,
});
export type ListMeta = z.infer<typeof listMetaSchema>;

/** v1ObjectMeta */
export const objectMetaSchema = z.object({
  uid: str,
  name: str,
  labels: stringMap,
  annotations: stringMap,
  creationTimestamp: str,
  deletionTimestamp: str,
  lastModifiedTimestamp: str,
});

/** v1ObjectReference / v1ObjectEntity / v1ObjectResReference */
export const objectRefSchema = z.object({ kind: str, name: str, uid: str, projectUid: str });

/** v1ClusterCondition */
export const clusterConditionSchema = z.object({
  type: str,
  status: str,
  reason: str,
  message: str,
  lastTransitionTime: str,
});

/** v1SpectroClusterHealthStatus */
export const clusterHealthSchema = z.object({
  state: str,
  agentVersion: str,
  lastHeartBeatTimestamp: str,
  conditions: list(z.object({ type: str, message: str, relatedObject: objectRefSchema.nullish() })),
});
export type ClusterHealth = z.infer<typeof clusterHealthSchema>;

/** v1MachinePoolMeta */
export const machinePoolMetaSchema = z.object({
  cloudType: str,
  healthy: int,
  isControlPlane: bool,
  labels: list(z.string()),
  size: int,
});

/** v1SpectroClusterSummary: one item of POST /v1/dashboard/spectroclusters/search */
export const clusterSummarySchema = z.object({
  metadata: objectMetaSchema.nullish(),
  specSummary: z
    .object({
      cloudAccountMeta: z.object({ name: str, uid: str }).nullish(),
      cloudConfig: z
        .object({ cloudType: str, uid: str, machinePools: list(machinePoolMetaSchema) })
        .nullish(),
      projectMeta: z.object({ name: str, uid: str }).nullish(),
      clusterProfileTemplate: z.object({ name: str, uid: str, cloudType: str }).nullish(),
    })
    .nullish(),
  status: z
    .object({
      state: str,
      health: clusterHealthSchema.nullish(),
    })
    .nullish(),
});
export type ClusterSummary = z.infer<typeof clusterSummarySchema>;

/** v1SpectroClustersSummary */
export const clustersSummarySchema = z.object({
  items: z.array(clusterSummarySchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1SpectroCluster: GET /v1/spectroclusters/{uid} */
export const clusterSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      cloudType: str,
      cloudConfigRef: objectRefSchema.nullish(),
      clusterType: str,
      clusterProfileTemplates: list(
        z.object({ name: str, uid: str, cloudType: str, type: str, profileVersion: str }),
      ),
      clusterConfig: z.object({ lifecycleConfig: z.object({ pause: bool }).nullish() }).nullish(),
    })
    .nullish(),
  status: z
    .object({
      state: str,
      apiEndpoints: list(z.object({ host: str, port: int })),
      conditions: list(clusterConditionSchema),
      virtual: z.object({ state: str }).nullish(),
      /** v1ClusterRepaveStatus: Pending while Palette holds a repave for approval */
      repave: z.object({ state: str }).nullish(),
    })
    .nullish(),
});
export type Cluster = z.infer<typeof clusterSchema>;

/** v1SpectroClusterUidSummary: GET /v1/dashboard/spectroclusters/{uid}/overview */
export const clusterOverviewSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  status: z
    .object({
      state: str,
      health: clusterHealthSchema.nullish(),
      apiEndpoints: list(z.object({ host: str, port: int })),
      kubeMeta: z
        .object({ kubernetesVersion: str, hasKubeConfig: bool, hasKubeConfigClient: bool })
        .nullish(),
      conditions: list(clusterConditionSchema),
      location: z.object({ regionName: str, countryName: str }).nullish(),
    })
    .nullish(),
});
export type ClusterOverview = z.infer<typeof clusterOverviewSchema>;

/** v1SpectroClusterStatusEntity: GET /v1/spectroclusters/{uid}/status */
export const clusterStatusSchema = z.object({
  status: z.object({ state: str }).nullish(),
});

/**
 * The common part of every provider's cloud config (v1AwsCloudConfig, v1VsphereCloudConfig, …):
 * machine pools live in `spec.machinePoolConfig`, each with a name, a size and its role.
 */
export const cloudConfigSchema = z.object({
  kind: str,
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      cloudAccountRef: objectRefSchema.nullish(),
      clusterConfig: z.record(z.string(), z.unknown()).nullish(),
      machinePoolConfig: list(
        z.object({
          name: str,
          size: int,
          minSize: int,
          maxSize: int,
          isControlPlane: bool,
          labels: list(z.string()),
          // a string on aws/azure/gcp/maas/openstack, an object on vsphere/virtual
          instanceType: z.unknown().optional(),
        }),
      ),
    })
    .nullish(),
  status: z.object({ conditions: list(clusterConditionSchema) }).nullish(),
});
export type CloudConfig = z.infer<typeof cloudConfigSchema>;

/** v1ClusterProfile: GET /v1/clusterprofiles/{uid} */
export const clusterProfileSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      version: str,
      versions: list(z.object({ uid: str, version: str })),
      published: z.object({ name: str, packs: list(z.object({ name: str, tag: str })) }).nullish(),
    })
    .nullish(),
});

/** v1ClusterLogFetcher: GET /v1/spectroclusters/{uid}/features/logFetcher */
export const logFetcherSchema = z.object({
  spec: z.object({ log: str }).nullish(),
  status: z.object({ state: str }).nullish(),
});

/** v1ClusterBackup: GET /v1/spectroclusters/{uid}/features/backup */
export const clusterBackupSchema = z.object({
  spec: z
    .object({
      config: z
        .object({
          backupLocationUid: str,
          backupLocationName: str,
          durationInHours: z.number().nullish(),
          includeAllDisks: bool,
          includeClusterResources: bool,
          namespaces: list(z.string()),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .object({
      clusterBackupStatuses: list(z.object({ backupRequestUid: str, state: str })),
    })
    .nullish(),
});

/** v1SpectroClusterRepave: GET /v1/spectroclusters/{uid}/repave/status */
export const repaveSchema = z.object({
  spec: z.object({ reasons: list(z.object({ code: str, message: str })) }).nullish(),
  status: z.object({ state: str, message: str }).nullish(),
});

/**
 * The same cloud config with each pool kept whole (per-cloud fields included): a pool update
 * sends back what it does not change
 */
export const rawMachinePoolsSchema = z.object({
  spec: z
    .object({
      machinePoolConfig: list(z.object({ name: z.string() }).catchall(z.unknown())),
    })
    .nullish(),
});

/** v1AwsMachine, v1VsphereMachine, …: status is v1CloudMachineStatus everywhere */
export const machineSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      instanceType: z.unknown().optional(),
      az: str,
      dnsName: str,
      hostName: str,
    })
    .nullish(),
  status: z
    .object({
      instanceState: str,
      ready: bool,
      health: z
        .object({
          state: str,
          conditions: list(z.object({ type: str, status: str, reason: str, message: str })),
        })
        .nullish(),
      addresses: list(z.object({ type: str, address: str })),
      maintenanceStatus: z.object({ action: str, state: str, message: str }).nullish(),
    })
    .nullish(),
});
export type Machine = z.infer<typeof machineSchema>;

export const machinesSchema = z.object({
  items: z.array(machineSchema),
  listmeta: listMetaSchema.nullish(),
});

const workloadMetaSchema = z.object({
  namespace: str,
  entity: z.object({ kind: str, name: str, uid: str }).nullish(),
  creationTimestamp: str,
  labels: stringMap,
});
const replicaWorkloadSchema = z.object({
  metadata: workloadMetaSchema.nullish(),
  status: z
    .object({
      replicas: z.object({ total: int, ready: int, available: int, updated: int }).nullish(),
    })
    .nullish(),
});

/** v1ClusterWorkload: POST /v1/dashboard/spectroclusters/{uid}/workloads */
export const workloadsSchema = z.object({
  metadata: z.object({ name: str }).nullish(),
  spec: z
    .object({
      pods: list(
        z.object({
          metadata: workloadMetaSchema.extend({ nodename: str }).nullish(),
          status: z
            .object({
              phase: str,
              containers: list(
                z.object({ name: str, ready: bool, restartCount: int, started: bool }),
              ),
            })
            .nullish(),
        }),
      ),
      deployments: list(replicaWorkloadSchema),
      statefulSets: list(replicaWorkloadSchema),
      daemonSets: list(
        z.object({
          metadata: workloadMetaSchema.nullish(),
          status: z
            .object({ desiredNumberScheduled: int, numberReady: int, numberAvailable: int })
            .passthrough()
            .nullish(),
        }),
      ),
      jobs: list(
        z.object({
          metadata: workloadMetaSchema.nullish(),
          status: z.object({ succeeded: int, failed: int, active: int }).passthrough().nullish(),
        }),
      ),
      cronJobs: list(z.object({ metadata: workloadMetaSchema.nullish() })),
    })
    .nullish(),
});
export type Workloads = z.infer<typeof workloadsSchema>;

/** v1Event */
export const eventSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  involvedObject: objectRefSchema.nullish(),
  relatedObject: z.object({ kind: str, name: str, uid: str }).nullish(),
  reason: str,
  message: str,
  severity: str,
  source: z.object({ component: str, host: str }).nullish(),
});
export type PaletteEvent = z.infer<typeof eventSchema>;

/** v1Events */
export const eventsSchema = z.object({
  items: z.array(eventSchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1ProjectAlertComponents: GET /v1/projects/alerts (alert kinds a project supports) */
export const alertComponentsSchema = z.object({
  components: list(z.object({ name: str, description: str, supportedChannels: list(z.string()) })),
});
export type AlertComponent = NonNullable<
  z.infer<typeof alertComponentsSchema>["components"]
>[number];

/** v1ProjectSummary */
export const projectSummarySchema = z.object({
  metadata: objectMetaSchema.nullish(),
  status: z
    .object({
      clustersHealth: z
        .object({ healthy: int, unhealthy: int, running: int, errored: int })
        .nullish(),
      status: z.object({ isDisabled: bool }).nullish(),
    })
    .nullish(),
});
export type ProjectSummary = z.infer<typeof projectSummarySchema>;

/** v1ProjectsSummary: POST /v1/dashboard/projects */
export const projectsSummarySchema = z.object({
  items: z.array(projectSummarySchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1AwsAccount, v1AzureAccount, …: only metadata and state are read; credentials never. */
export const cloudAccountSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  status: z.object({ state: str }).nullish(),
});
export type CloudAccount = z.infer<typeof cloudAccountSchema>;

export const cloudAccountsSchema = z.object({
  items: z.array(cloudAccountSchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1ClusterProfileMetadata: GET /v1/dashboard/clusterprofiles/metadata */
export const clusterProfileMetaSchema = z.object({
  metadata: z.object({ name: str, uid: str }).nullish(),
  spec: z.object({ cloudType: str, version: str }).nullish(),
});
export type ClusterProfileMeta = z.infer<typeof clusterProfileMetaSchema>;

export const clusterProfilesMetadataSchema = z.object({
  items: z.array(clusterProfileMetaSchema),
});

/** v1ClusterGroupSummary: GET /v1/clustergroups/hostCluster (for virtual clusters) */
export const clusterGroupsSchema = z.object({
  summaries: z.array(
    z.object({
      metadata: objectMetaSchema.nullish(),
      spec: z
        .object({
          scope: str,
          hostClusters: list(objectRefSchema),
          hostClustersCount: int,
        })
        .nullish(),
    }),
  ),
});
export type ClusterGroup = z.infer<typeof clusterGroupsSchema>["summaries"][number];

/** v1EdgeHostsMetadata: POST /v1/dashboard/edgehosts/search (for edge-native clusters) */
export const edgeHostSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  status: z
    .object({
      state: str,
      health: z.object({ state: str }).nullish(),
      inUseClusters: list(z.object({ name: str, uid: str })),
    })
    .nullish(),
});
export type EdgeHost = z.infer<typeof edgeHostSchema>;

export const edgeHostsSchema = z.object({
  items: z.array(edgeHostSchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1Uid: 201 body of POST /v1/spectroclusters/{provider} */
export const uidSchema = z.object({ uid: z.string().min(1) });

/** v1UserToken: POST /v1/auth/authenticate and GET /v1/auth/refresh/{token} */
export const userTokenSchema = z.object({
  Authorization: z.string().min(1),
  isMfa: bool,
});

/** v1UserInfo: GET /v1/users/info, who the credential belongs to */
export const userInfoSchema = z.object({
  userUid: z.string().min(1),
  orgName: str,
  tenantUid: str,
});

/** v1User (GET /v1/users/{uid}) and v1UserSummary (POST /v1/users/summary): name and e-mail */
export const userSchema = z.object({
  metadata: z.object({ uid: z.string().min(1), name: str }),
  spec: z.object({ emailId: str, firstName: str, lastName: str }).nullish(),
});
export type PaletteUserRecord = z.infer<typeof userSchema>;

/** v1UsersSummaryList */
export const usersSummarySchema = z.object({ items: z.array(userSchema).nullish() });

/** v1ApiKeyCreateResponse: POST /v1/apiKeys */
export const apiKeyCreatedSchema = z.object({
  apiKey: z.string().min(1),
  uid: z.string().min(1),
});

/** v1ApiKeys (GET /v1/apiKeys): each key's metadata is all the bot reads */
export const apiKeysSchema = z.object({
  items: z
    .array(
      z.object({
        metadata: z.object({ uid: z.string().min(1), name: z.string().nullish() }),
      }),
    )
    .nullish(),
});

/** v1Error: the body of every non-2xx answer */
export const errorBodySchema = z.object({
  code: str,
  message: str,
  ref: str,
  details: z.unknown().optional(),
});
