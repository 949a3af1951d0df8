import { define } from "./define.ts";
import {
  controlPlanes,
  INSTANCE_TYPE,
  plain,
  size,
  sshKeyName,
  sshPublicKey,
  textField,
  workers,
  zones,
} from "./fields.ts";
import { accountBody, controlPlaneAndWorkerPools, ifGiven } from "./pools.ts";

// The providers that launch into the customer's own datacenter.

export const maas = define({
  provider: "maas",
  label: "Canonical MAAS",
  cloudAccount: "maas",
  controlPlanePool: true,
  fields: {
    domain: textField({
      id: "domain",
      label: "MAAS domain",
      placeholder: "maas.example.com",
      pattern:
        /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/,
      message: "MAAS domain must be a DNS name, e.g. maas.example.com.",
      max: 253,
    }),
    resourcePool: plain("resourcePool", "Resource pool", "default"),
    size: size(),
    sshKey: sshPublicKey(true),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      { domain: v.domain, ...(v.sshKey ? { sshKeys: [v.sshKey] } : {}) },
      controlPlaneAndWorkerPools(v, {
        instanceType: {
          minCPU: v.size.cpu,
          minMemInMB: v.size.memoryGiB * 1024,
          minDiskSizeInGB: v.size.diskGiB,
        },
        resourcePool: v.resourcePool,
      }),
    ),
});

export const vsphere = define({
  provider: "vsphere",
  label: "VMware vSphere",
  cloudAccount: "vsphere",
  controlPlanePool: true,
  fields: {
    datacenter: plain("datacenter", "Datacenter", "Datacenter"),
    folder: plain("folder", "VM folder", "spectro/clusters"),
    computeCluster: plain("computeCluster", "Compute cluster", "Cluster1"),
    datastore: plain("datastore", "Datastore", "datastore1"),
    network: plain("network", "Network", "VM Network"),
    resourcePool: plain(
      "resourcePool",
      "Resource pool",
      "leave empty for the cluster's root",
      true,
    ),
    size: size(),
    sshKey: sshPublicKey(false),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      {
        sshKeys: [v.sshKey],
        staticIp: false,
        placement: { datacenter: v.datacenter, folder: v.folder },
      },
      controlPlaneAndWorkerPools(v, {
        instanceType: {
          numCPUs: v.size.cpu,
          memoryMiB: v.size.memoryGiB * 1024,
          diskGiB: v.size.diskGiB,
        },
        placements: [
          {
            cluster: v.computeCluster,
            datastore: v.datastore,
            resourcePool: v.resourcePool ?? "",
            network: { networkName: v.network, staticIp: false },
          },
        ],
      }),
    ),
});

export const openstack = define({
  provider: "openstack",
  label: "OpenStack",
  cloudAccount: "openstack",
  controlPlanePool: true,
  fields: {
    region: plain("region", "Region", "RegionOne", false, 63),
    osProject: plain("osProject", "OpenStack project", "admin", false, 63),
    osDomain: plain("osDomain", "OpenStack domain", "Default", false, 63),
    flavor: textField({
      id: "flavor",
      label: "Flavor",
      placeholder: "m1.large",
      initial: "m1.large",
      pattern: INSTANCE_TYPE,
      message: "Flavor must be an OpenStack flavor name, e.g. m1.large.",
      max: 64,
    }),
    sshKeyName: sshKeyName(false),
    azs: zones("nova"),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      {
        region: v.region,
        project: { name: v.osProject },
        domain: { name: v.osDomain },
        sshKeyName: v.sshKeyName,
      },
      controlPlaneAndWorkerPools(v, { flavorConfig: { name: v.flavor }, ...ifGiven("azs", v.azs) }),
    ),
});
