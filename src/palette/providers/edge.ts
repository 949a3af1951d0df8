import { define } from "./define.ts";
import { field, sshPublicKey, textField, UID } from "./fields.ts";
import { metadata, pool, profiles } from "./pools.ts";
import { optionalList, requiredList } from "./schemas.ts";

const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export const edgeNative = define({
  provider: "edge-native",
  label: "Edge (native)",
  controlPlanePool: true,
  fields: {
    edgeHosts: field({
      id: "edgeHosts",
      label: "Control-plane edge hosts",
      kind: "multi_external",
      optional: false,
      source: "edge_hosts",
      placeholder: "Pick registered edge hosts",
      hint: "1 or 3 hosts; they also run workloads unless you pick worker hosts.",
      schema: requiredList("Control-plane edge hosts", UID, "Pick edge hosts from the list."),
    }),
    workerHosts: field({
      id: "workerHosts",
      label: "Worker edge hosts",
      kind: "multi_external",
      optional: true,
      source: "edge_hosts",
      placeholder: "Optional",
      schema: optionalList(UID, "Pick edge hosts from the list."),
    }),
    vip: textField({
      id: "vip",
      label: "Cluster VIP",
      optional: true,
      placeholder: "10.0.0.100",
      hint: "A free IP for the API server; required with more than one host.",
      pattern: IPV4,
      message: "Cluster VIP must be an IPv4 address, e.g. 10.0.0.100.",
      max: 15,
    }),
    sshKey: sshPublicKey(true),
  },
  check: (v) => {
    const errors: Record<string, string> = {};
    const workersList = v.workerHosts ?? [];
    if (![1, 3, 5].includes(v.edgeHosts.length)) {
      errors.edgeHosts = "Pick 1, 3 or 5 control-plane edge hosts (an odd number keeps quorum).";
    }
    if (workersList.some((host) => v.edgeHosts.includes(host))) {
      errors.workerHosts = "A host cannot be both a control-plane and a worker host.";
    }
    if (v.edgeHosts.length + workersList.length > 1 && !v.vip) {
      errors.vip = "Cluster VIP is required when the cluster has more than one host.";
    }
    return errors;
  },
  build: (v) => {
    const workerHosts = v.workerHosts ?? [];
    const hosts = (uids: string[]) => ({ edgeHosts: uids.map((hostUid) => ({ hostUid })) });
    const pools: unknown[] = [
      {
        poolConfig: {
          ...pool("cp-pool", v.edgeHosts.length, true),
          useControlPlaneAsWorker: workerHosts.length === 0,
        },
        cloudConfig: hosts(v.edgeHosts),
      },
    ];
    if (workerHosts.length > 0) {
      pools.push({
        poolConfig: pool("worker-pool", workerHosts.length, false),
        cloudConfig: hosts(workerHosts),
      });
    }
    return {
      metadata: metadata(v),
      spec: {
        profiles: profiles(v),
        cloudConfig: {
          ...(v.vip ? { controlPlaneEndpoint: { host: v.vip, type: "VIP" } } : {}),
          sshKeys: v.sshKey ? [v.sshKey] : [],
        },
        machinepoolconfig: pools,
      },
    };
  },
});
