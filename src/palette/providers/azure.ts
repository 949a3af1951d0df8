import { define } from "./define.ts";
import { controlPlanes, instanceType, sshPublicKey, textField, workers, zones } from "./fields.ts";
import { accountBody, controlPlaneAndWorkerPools, ifGiven, pool } from "./pools.ts";
import type { CommonValues } from "./types.ts";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** What Azure IaaS and AKS both ask. */
const azureFields = (instance: string) => ({
  subscriptionId: textField({
    id: "subscriptionId",
    label: "Subscription ID",
    placeholder: "00000000-0000-0000-0000-000000000000",
    pattern: UUID,
    message: "Subscription ID must be a UUID, e.g. 8d2c…-….",
    max: 36,
  }),
  location: textField({
    id: "location",
    label: "Region",
    placeholder: "eastus",
    pattern: /^[a-z][a-z0-9]{1,39}$/,
    message: "Region must be an Azure location name, e.g. eastus or westeurope.",
    max: 40,
  }),
  resourceGroup: textField({
    id: "resourceGroup",
    label: "Resource group",
    placeholder: "rg-clusters",
    pattern: /^[-\w.()]{1,89}[-\w()]$/,
    message: "Resource group may hold letters, digits, '-', '_', '.', '(' and ')'.",
    max: 90,
  }),
  sshKey: sshPublicKey(false),
  instanceType: instanceType(instance, instance),
});

type AzureValues = CommonValues & {
  subscriptionId: string;
  location: string;
  resourceGroup: string;
  sshKey: string;
};

const azureCloudConfig = (v: AzureValues) => ({
  subscriptionId: v.subscriptionId,
  location: v.location,
  resourceGroup: v.resourceGroup,
  sshKey: v.sshKey,
});

export const azure = define({
  provider: "azure",
  label: "Azure (IaaS)",
  cloudAccount: "azure",
  controlPlanePool: true,
  fields: {
    ...azureFields("Standard_D4s_v3"),
    azs: zones("1, 2, 3"),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      azureCloudConfig(v),
      controlPlaneAndWorkerPools(v, {
        instanceType: v.instanceType,
        osDisk: { diskSizeGB: 60, managedDisk: { storageAccountType: "Premium_LRS" } },
        ...ifGiven("azs", v.azs),
      }),
    ),
});

export const aks = define({
  provider: "aks",
  label: "Azure AKS",
  cloudAccount: "azure",
  controlPlanePool: false,
  fields: { ...azureFields("Standard_D2s_v3"), workers: workers(100) },
  // AKS needs one system node pool; the managed control plane has no pool of its own.
  build: (v) =>
    accountBody(v, azureCloudConfig(v), [
      {
        poolConfig: pool("worker-pool", v.workers, false),
        managedPoolConfig: { isSystemNodePool: true, osType: "Linux" },
        cloudConfig: {
          instanceType: v.instanceType,
          isSystemNodePool: true,
          osDisk: { diskSizeGB: 60, osType: "Linux" },
        },
      },
    ]),
});
