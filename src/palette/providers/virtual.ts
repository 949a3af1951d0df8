import { define } from "./define.ts";
import { numberField, pickerField } from "./fields.ts";
import { metadata, profiles } from "./pools.ts";

export const virtual = define({
  provider: "virtual",
  label: "Virtual cluster",
  controlPlanePool: false,
  profileOptional: true,
  fields: {
    clusterGroup: pickerField({
      id: "clusterGroup",
      label: "Cluster group",
      source: "cluster_group",
      placeholder: "Type to search cluster groups",
      message: "Pick a cluster group.",
    }),
    hostCluster: pickerField({
      id: "hostCluster",
      label: "Host cluster",
      optional: true,
      source: "host_cluster",
      placeholder: "Any host of the group",
      message: "Pick a host cluster.",
    }),
    cpu: numberField("cpu", "CPU limit (cores)", "CPU limit", "4", 64),
    memoryGiB: numberField("memoryGiB", "Memory limit (GiB)", "Memory limit", "8", 512),
    storageGiB: numberField("storageGiB", "Storage limit (GiB)", "Storage limit", "20", 2048),
  },
  build: (v) => ({
    metadata: metadata(v),
    spec: {
      profiles: profiles(v),
      clusterConfig: {
        hostClusterConfig: {
          clusterGroup: { uid: v.clusterGroup },
          ...(v.hostCluster ? { hostCluster: { uid: v.hostCluster } } : {}),
        },
      },
      cloudConfig: {},
      machinepoolconfig: [
        {
          cloudConfig: {
            instanceType: {
              maxCPU: v.cpu,
              maxMemInMiB: v.memoryGiB * 1024,
              maxStorageGiB: v.storageGiB,
              minCPU: 0,
              minMemInMiB: 0,
              minStorageGiB: 0,
            },
          },
        },
      ],
    },
  }),
});
