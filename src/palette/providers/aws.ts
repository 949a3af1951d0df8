import { define } from "./define.ts";
import {
  controlPlanes,
  field,
  instanceType,
  sshKeyName,
  textField,
  workers,
  zones,
} from "./fields.ts";
import { accountBody, controlPlaneAndWorkerPools, ifGiven, pool } from "./pools.ts";
import { oneOf } from "./schemas.ts";

const awsRegion = () =>
  textField({
    id: "region",
    label: "Region",
    placeholder: "us-east-1",
    pattern: /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/,
    message: "Region must be an AWS region code, e.g. us-east-1.",
    max: 32,
  });

export const aws = define({
  provider: "aws",
  label: "AWS (IaaS)",
  cloudAccount: "aws",
  controlPlanePool: true,
  fields: {
    region: awsRegion(),
    instanceType: instanceType("m5.xlarge", "m5.xlarge"),
    sshKeyName: sshKeyName(false),
    azs: zones("us-east-1a, us-east-1b"),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) =>
    accountBody(
      v,
      { region: v.region, sshKeyName: v.sshKeyName },
      controlPlaneAndWorkerPools(v, { instanceType: v.instanceType, ...ifGiven("azs", v.azs) }),
    ),
});

export const eks = define({
  provider: "eks",
  label: "AWS EKS",
  cloudAccount: "aws",
  controlPlanePool: false,
  fields: {
    region: awsRegion(),
    instanceType: instanceType("t3.large", "t3.large"),
    endpointAccess: field({
      id: "endpointAccess",
      label: "API endpoint access",
      kind: "select",
      optional: false,
      initial: "public",
      choices: [
        { value: "public", label: "Public" },
        { value: "private", label: "Private" },
        { value: "public-private", label: "Public and private" },
      ],
      schema: oneOf("API endpoint access", ["public", "private", "public-private"]),
    }),
    sshKeyName: sshKeyName(true),
    azs: zones("us-east-1a, us-east-1b"),
    workers: workers(100),
  },
  build: (v) =>
    accountBody(
      v,
      {
        region: v.region,
        endpointAccess: {
          public: v.endpointAccess !== "private",
          private: v.endpointAccess !== "public",
        },
        ...ifGiven("sshKeyName", v.sshKeyName),
      },
      [
        {
          poolConfig: pool("worker-pool", v.workers, false),
          cloudConfig: {
            instanceType: v.instanceType,
            capacityType: "on-demand",
            ...ifGiven("azs", v.azs),
          },
        },
      ],
    ),
});
