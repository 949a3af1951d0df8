import { define } from "./define.ts";
import { controlPlanes, instanceType, plain, textField, workers, zones } from "./fields.ts";
import { accountBody, controlPlaneAndWorkerPools, ifGiven, pool } from "./pools.ts";

/** What GCP IaaS and GKE both ask. */
const gcpFields = (instance: string) => ({
  gcpProject: textField({
    id: "gcpProject",
    label: "GCP project ID",
    placeholder: "my-gcp-project",
    pattern: /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
    message:
      "GCP project ID must be 6–30 lower-case letters, digits or '-', starting with a letter.",
    max: 30,
  }),
  region: textField({
    id: "region",
    label: "Region",
    placeholder: "us-central1",
    pattern: /^[a-z]+-[a-z]+\d+$/,
    message: "Region must be a GCP region, e.g. us-central1.",
    max: 32,
  }),
  instanceType: instanceType(instance, instance),
});

export const gcp = define({
  provider: "gcp",
  label: "Google Cloud (IaaS)",
  cloudAccount: "gcp",
  controlPlanePool: true,
  fields: {
    ...gcpFields("n2-standard-4"),
    network: plain("network", "VPC network", "default", true, 63),
    azs: zones("us-central1-a"),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      { project: v.gcpProject, region: v.region, ...ifGiven("network", v.network) },
      controlPlaneAndWorkerPools(v, { instanceType: v.instanceType, ...ifGiven("azs", v.azs) }),
    ),
});

export const gke = define({
  provider: "gke",
  label: "Google GKE",
  cloudAccount: "gcp",
  controlPlanePool: false,
  fields: { ...gcpFields("e2-standard-4"), workers: workers(100) },
  build: (v) =>
    accountBody(v, { project: v.gcpProject, region: v.region }, [
      {
        poolConfig: pool("worker-pool", v.workers, false),
        cloudConfig: { instanceType: v.instanceType },
      },
    ]),
});
