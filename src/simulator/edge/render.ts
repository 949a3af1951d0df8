import { iso } from "../render.ts";
import type { EdgeBook, EdgeHostView, EdgeToken } from "./book.ts";

/**
 * Edge hosts and tokens as Palette's JSON: v1EdgeHostsMetadata (a search item), v1EdgeHostDevice
 * (one host) and v1EdgeToken, with the spec's casing (`status.health.state` lower case). A
 * token's secret is a placeholder: the simulator has none worth keeping, and the bot must not
 * read it anyway.
 */

function metadata(view: EdgeHostView) {
  return {
    uid: view.host.uid,
    name: view.host.name,
    labels: { ...view.life.labels },
    creationTimestamp: iso(view.life.createdAt),
    lastModifiedTimestamp: iso(view.lastModified),
  };
}

function device(view: EdgeHostView) {
  const { life } = view;
  return {
    archType: life.arch,
    cpu: { cores: life.cpuCores },
    memory: { sizeInMB: life.memoryMB },
    gpus: life.gpus.map((gpu) => ({ ...gpu })),
    os: { ...life.os },
    hostType: "appliance",
    hostState: view.state === "in-use" ? "cluster" : "registration",
  };
}

function health(view: EdgeHostView) {
  return {
    state: view.health,
    agentVersion: view.life.agentVersion,
    ...(view.message ? { message: view.message } : {}),
  };
}

function clusterRefs(book: EdgeBook, view: EdgeHostView) {
  const cluster = view.host.inUseClusterUid
    ? book.fleet.byUid.get(view.host.inUseClusterUid)
    : undefined;
  return cluster ? [{ name: cluster.name, uid: cluster.uid }] : [];
}

export function edgeHostSummary(book: EdgeBook, view: EdgeHostView, projectName: string) {
  const refs = clusterRefs(book, view);
  return {
    metadata: metadata(view),
    spec: {
      type: "edge-native",
      device: device(view),
      host: { hostAddress: view.host.address, macAddress: view.host.macAddress },
      projectMeta: { uid: view.host.projectUid, name: projectName },
    },
    status: {
      state: view.state,
      health: health(view),
      inUseClusters: refs,
      inUseClustersRef: refs,
    },
  };
}

export function edgeHostDevice(book: EdgeBook, view: EdgeHostView) {
  const shell = view.life.shell;
  return {
    metadata: metadata(view),
    aclmeta: { projectUid: view.host.projectUid },
    spec: {
      type: "edge-native",
      device: device(view),
      host: {
        hostUid: view.host.uid,
        hostAddress: view.host.address,
        macAddress: view.host.macAddress,
        remoteSsh: view.life.remoteSsh,
      },
      version: view.life.agentVersion,
    },
    status: {
      state: view.state,
      health: health(view),
      inUseClustersRef: clusterRefs(book, view),
      ...(shell
        ? { tunnelStatus: { ssh: { state: shell.state, lastModifiedTime: iso(shell.at) } } }
        : {}),
    },
  };
}

export function edgeToken(token: EdgeToken, projectName: string | undefined) {
  return {
    metadata: {
      uid: token.uid,
      name: token.name,
      creationTimestamp: iso(token.createdAt),
    },
    spec: {
      expiry: iso(token.expiry),
      token: `sim-edge-token-${token.uid.slice(0, 6)}`,
      ...(token.defaultProjectUid
        ? { defaultProject: { uid: token.defaultProjectUid, name: projectName ?? "" } }
        : {}),
    },
    status: { isActive: token.active },
  };
}
