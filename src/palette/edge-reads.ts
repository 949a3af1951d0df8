import { z } from "zod";
import { listMetaSchema, objectMetaSchema } from "./schemas.ts";
import { tagsOf } from "./tags.ts";

/**
 * What the bot reads of the edge fleet (issue 39): the host search
 * (`POST /v1/dashboard/edgehosts/search`, v1EdgeHostsSearchSummary of v1EdgeHostsMetadata), one
 * host (`GET /v1/edgehosts/{uid}`, v1EdgeHostDevice), a cluster's hosts
 * (`GET /v1/spectroclusters/{uid}/edge-native/edgeHosts`, v1EdgeHostDevices), the hosts' tags
 * (`GET /v1/edgehosts/tags`, v1EdgeHostsTags) and the registration tokens
 * (`GET /v1/edgehosts/tokens`, v1EdgeTokens). Field names follow palette-sdk-go's spec; unknown
 * fields are dropped, never rejected, every field may be missing or null. Two deliberate gaps:
 * a token's `spec.token` and a host's `status.serviceAuthToken` are secrets and are not in these
 * schemas, so they never leave this module. The client sends the requests; this module says what
 * the answers mean, as plain records the rest of the bot can use without knowing Palette's shapes.
 */

const str = z.string().nullish();
const int = z.number().nullish();
const list = <T extends z.ZodTypeAny>(item: T) => z.array(item).nullish();

/** v1EdgeHostHealth: `state` is lower case (`healthy` | `unhealthy`), unlike a cluster's */
const edgeHealthSchema = z.object({ state: str, message: str, agentVersion: str });

/** v1EdgeClusterObjectEntity / v1ObjectEntity */
const clusterRefSchema = z.object({ name: str, uid: str });

/** v1DeviceSpec: what the host is */
const deviceSchema = z.object({
  archType: str,
  cpu: z.object({ cores: int }).nullish(),
  memory: z.object({ sizeInMB: int }).nullish(),
  gpus: list(z.object({ vendor: str, model: str, gpuCount: int, memory: str })),
  os: z.object({ family: str, version: str }).nullish(),
});

/** v1EdgeHostsMetadataStatus and v1EdgeHostDeviceStatus share these */
const hostStatusFields = {
  state: str,
  health: edgeHealthSchema.nullish(),
  inUseClustersRef: list(clusterRefSchema),
  /** deprecated in the spec, still sent by older Palettes: read when the ref list is absent */
  inUseClusters: list(clusterRefSchema),
};

/** v1EdgeHostsMetadata: one item of the search */
export const edgeHostSummarySchema = z.object({
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      type: str,
      device: deviceSchema.nullish(),
      host: z.object({ hostAddress: str, macAddress: str }).nullish(),
      projectMeta: z.object({ name: str, uid: str }).nullish(),
    })
    .nullish(),
  status: z.object(hostStatusFields).nullish(),
});
export type EdgeHostSummaryBody = z.infer<typeof edgeHostSummarySchema>;

/** v1EdgeHostsSearchSummary */
export const edgeHostsSearchSchema = z.object({
  items: z.array(edgeHostSummarySchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1EdgeHostDevice: one host, as GET /v1/edgehosts/{uid} answers */
export const edgeHostDeviceSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  aclmeta: z.object({ projectUid: str }).nullish(),
  spec: z
    .object({
      device: deviceSchema.nullish(),
      host: z.object({ hostAddress: str, macAddress: str, remoteSsh: str }).nullish(),
    })
    .nullish(),
  status: z
    .object({
      ...hostStatusFields,
      tunnelStatus: z
        .object({
          ssh: z.object({ state: str, message: str, lastModifiedTime: str }).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

/** v1EdgeHostDevices: GET /v1/spectroclusters/{uid}/edge-native/edgeHosts */
export const edgeHostDevicesSchema = z.object({
  items: z.array(edgeHostDeviceSchema),
  listmeta: listMetaSchema.nullish(),
});

/** v1EdgeHostsTags */
export const edgeHostTagsSchema = z.object({ tags: list(z.string()) });

/** v1EdgeTokens; `spec.token` (the secret itself) deliberately left out */
export const edgeTokensSchema = z.object({
  items: z.array(
    z.object({
      metadata: objectMetaSchema.nullish(),
      spec: z
        .object({
          expiry: str,
          defaultProject: z.object({ name: str, uid: str }).nullish(),
        })
        .nullish(),
      status: z.object({ isActive: z.boolean().nullish() }).nullish(),
    }),
  ),
});

/** The three states of v1EdgeHostState; another value is kept as it came. */
export type EdgeHostState = "ready" | "unpaired" | "in-use";
export type EdgeHealth = "healthy" | "unhealthy";

/** An edge host as the search lists it. */
export interface EdgeHostSummary {
  uid: string;
  name: string;
  projectUid?: string;
  projectName?: string;
  /** `ready` | `unpaired` | `in-use`, or what Palette sent */
  state?: string;
  /** lower case: `healthy` | `unhealthy`; absent when the host never reported */
  health?: string;
  healthMessage?: string;
  agentVersion?: string;
  /** as users type them: `site:store-0142`, `dev` */
  tags: string[];
  clusters: Array<{ uid: string; name: string }>;
  architecture?: string;
  createdAt?: string;
  lastModifiedAt?: string;
}

/** One host in full: the summary and what only GET /v1/edgehosts/{uid} says. */
export interface EdgeHostDetail extends EdgeHostSummary {
  address?: string;
  cpuCores?: number;
  memoryMB?: number;
  gpus: Array<{ vendor?: string; model?: string; count?: number }>;
  os?: string;
  /** whether a remote shell may be opened at all (`enabled` | `disabled`) */
  remoteSsh?: string;
  /** `tunnelStatus.ssh.state`: Initiating, Created (open), Deleting, Deleted, Failed */
  shellState?: string;
  shellSince?: string;
}

/** A registration token, without the token. */
export interface EdgeToken {
  uid: string;
  name: string;
  expiry?: string;
  defaultProjectUid?: string;
  defaultProjectName?: string;
  active: boolean;
}

const present = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value === "" ? undefined : value;

const lower = (value: string | null | undefined): string | undefined =>
  present(value)?.toLowerCase();

type ClusterRef = z.infer<typeof clusterRefSchema>;

function clustersOf(
  refs: ClusterRef[] | null | undefined,
  deprecated: ClusterRef[] | null | undefined,
): Array<{ uid: string; name: string }> {
  const chosen = refs && refs.length > 0 ? refs : (deprecated ?? []);
  return chosen.flatMap((ref) =>
    ref.uid ? [{ uid: ref.uid, name: present(ref.name) ?? ref.uid }] : [],
  );
}

type DeviceBody = z.infer<typeof deviceSchema>;
type HealthBody = z.infer<typeof edgeHealthSchema>;
type MetaBody = z.infer<typeof objectMetaSchema>;

/** The fields the search item and the device share, in one reading. */
function commonFacts(
  metadata: MetaBody | null | undefined,
  status:
    | {
        state?: string | null;
        health?: HealthBody | null;
        inUseClustersRef?: ClusterRef[] | null;
        inUseClusters?: ClusterRef[] | null;
      }
    | null
    | undefined,
  device: DeviceBody | null | undefined,
): Omit<EdgeHostSummary, "projectUid" | "projectName"> {
  const uid = metadata?.uid ?? "";
  const facts: Omit<EdgeHostSummary, "projectUid" | "projectName"> = {
    uid,
    name: present(metadata?.name) ?? uid,
    tags: tagsOf(metadata?.labels),
    clusters: clustersOf(status?.inUseClustersRef, status?.inUseClusters),
  };
  const optional: Array<[keyof EdgeHostSummary, string | undefined]> = [
    ["state", lower(status?.state)],
    ["health", lower(status?.health?.state)],
    ["healthMessage", present(status?.health?.message)],
    ["agentVersion", present(status?.health?.agentVersion)],
    ["architecture", present(device?.archType)],
    ["createdAt", present(metadata?.creationTimestamp)],
    ["lastModifiedAt", present(metadata?.lastModifiedTimestamp)],
  ];
  for (const [key, value] of optional) {
    if (value !== undefined) (facts as unknown as Record<string, string>)[key] = value;
  }
  return facts;
}

export function edgeHostSummary(item: EdgeHostSummaryBody): EdgeHostSummary {
  const facts: EdgeHostSummary = commonFacts(item.metadata, item.status, item.spec?.device);
  const projectUid = present(item.spec?.projectMeta?.uid);
  const projectName = present(item.spec?.projectMeta?.name);
  if (projectUid) facts.projectUid = projectUid;
  if (projectName) facts.projectName = projectName;
  return facts;
}

export function edgeHostDetail(body: z.infer<typeof edgeHostDeviceSchema>): EdgeHostDetail {
  const device = body.spec?.device;
  const detail: EdgeHostDetail = {
    ...commonFacts(body.metadata, body.status, device),
    gpus: (device?.gpus ?? []).map((gpu) => ({
      ...(present(gpu.vendor) ? { vendor: gpu.vendor as string } : {}),
      ...(present(gpu.model) ? { model: gpu.model as string } : {}),
      ...(typeof gpu.gpuCount === "number" ? { count: gpu.gpuCount } : {}),
    })),
  };
  const projectUid = present(body.aclmeta?.projectUid);
  if (projectUid) detail.projectUid = projectUid;
  const address = present(body.spec?.host?.hostAddress);
  if (address) detail.address = address;
  if (typeof device?.cpu?.cores === "number") detail.cpuCores = device.cpu.cores;
  if (typeof device?.memory?.sizeInMB === "number") detail.memoryMB = device.memory.sizeInMB;
  const os = [present(device?.os?.family), present(device?.os?.version)].filter(Boolean).join(" ");
  if (os) detail.os = os;
  const remoteSsh = present(body.spec?.host?.remoteSsh);
  if (remoteSsh) detail.remoteSsh = remoteSsh;
  const ssh = body.status?.tunnelStatus?.ssh;
  if (present(ssh?.state)) detail.shellState = ssh?.state as string;
  if (present(ssh?.lastModifiedTime)) detail.shellSince = ssh?.lastModifiedTime as string;
  return detail;
}

export function edgeTokens(body: z.infer<typeof edgeTokensSchema>): EdgeToken[] {
  return body.items.flatMap((item) => {
    const uid = present(item.metadata?.uid);
    if (!uid) return [];
    const token: EdgeToken = {
      uid,
      name: present(item.metadata?.name) ?? uid,
      active: item.status?.isActive === true,
    };
    const expiry = present(item.spec?.expiry);
    if (expiry) token.expiry = expiry;
    const projectUid = present(item.spec?.defaultProject?.uid);
    if (projectUid) token.defaultProjectUid = projectUid;
    const projectName = present(item.spec?.defaultProject?.name);
    if (projectName) token.defaultProjectName = projectName;
    return [token];
  });
}
