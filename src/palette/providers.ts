import { z } from "zod";
import { type CloudAccountKind, PROVIDERS, type Provider } from "./providers-list.ts";

/**
 * The launch catalogue: for each of Palette's eleven providers, what the launch form asks, how
 * each answer is validated (zod, with messages written for the person filling the form), and a
 * pure function from validated answers to the body of `POST /v1/spectroclusters/{provider}`.
 * The Slack modal and the console prompts both read this table, so they ask the same questions
 * and give the same answers to bad input.
 */

export type FieldKind = "text" | "multiline" | "number" | "select" | "external" | "multi_external";

/** Where an `external` field's choices come from (Slack `block_suggestion`, console lists). */
export type OptionSource = "account" | "profile" | "edge_hosts" | "cluster_group" | "host_cluster";

export interface Choice {
  value: string;
  label: string;
}

/** Raw answers as the edges collect them: block/field id → text, or several for multi-selects. */
export type RawValues = Record<string, string | string[] | null | undefined>;

export interface FieldSpec<S extends z.ZodType = z.ZodType> {
  /** also the Slack block_id and action_id, and the key of `response_action: errors` */
  id: string;
  label: string;
  kind: FieldKind;
  optional: boolean;
  placeholder?: string;
  hint?: string;
  /** `select` only */
  choices?: Choice[];
  /** the pre-filled answer, if any */
  initial?: string;
  /** `number` only: the range Slack's number_input enforces too */
  min?: number;
  max?: number;
  /** `external` / `multi_external` only */
  source?: OptionSource;
  schema: S;
}

type FieldMap = Record<string, FieldSpec>;
type ValuesOf<F extends FieldMap> = { [K in keyof F]: z.output<F[K]["schema"]> };

/** Answers every provider's form has. */
export interface CommonValues {
  name: string;
  /** Palette labels: `key:value` tags as they are, plain tags with Palette's `spectro__tag` */
  tags: Record<string, string>;
  /** cluster profile uid; optional only for virtual clusters */
  profile?: string;
  /** cloud account uid, for providers that need one */
  account?: string;
}

export interface CreateBody {
  metadata: { name: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

export interface ProviderSpec {
  provider: Provider;
  label: string;
  /** kind of `GET /v1/cloudaccounts/{kind}`; undefined when the provider takes no account */
  cloudAccount?: CloudAccountKind;
  /** the cluster profiles' `spec.cloudType` this provider launches */
  cloudType: string;
  /** true when the body carries a control-plane machine pool */
  controlPlanePool: boolean;
  /** every field of the form, in the order it is asked */
  fields: FieldSpec[];
  /** validates raw answers; errors keyed by field id */
  validate(raw: RawValues): Validation;
  /** validated answers → create body (pure) */
  build(values: Record<string, unknown>): CreateBody;
}

export type Validation =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

// ---------------------------------------------------------------------------------------------
// Field schemas. Every one accepts what the edges send (text, null for an empty Slack input,
// arrays for multi-selects) and says in one sentence what it wants.

function blank(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
  }
  if (Array.isArray(value)) {
    const items = value
      .filter((item): item is string => typeof item === "string")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    return items.length === 0 ? undefined : items;
  }
  return value;
}

interface TextRule {
  pattern?: RegExp;
  message?: string;
  max?: number;
}

function requiredText(label: string, rule: TextRule = {}) {
  const max = rule.max ?? 255;
  let inner = z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${label} is required.` : `${label} must be text.`,
    })
    .max(max, `${label} must be at most ${max} characters.`);
  if (rule.pattern) inner = inner.regex(rule.pattern, rule.message ?? `${label} is not valid.`);
  return z.preprocess(blank, inner);
}

function optionalText(label: string, rule: TextRule = {}) {
  const max = rule.max ?? 255;
  let inner = z.string().max(max, `${label} must be at most ${max} characters.`);
  if (rule.pattern) inner = inner.regex(rule.pattern, rule.message ?? `${label} is not valid.`);
  return z.preprocess(blank, inner.optional());
}

function wholeNumber(label: string, min: number, max: number) {
  const range = `${label} must be a whole number from ${min} to ${max}.`;
  return z.preprocess(
    (value) => {
      const text = blank(value);
      if (typeof text !== "string") return text;
      return /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
    },
    z
      .number({ error: (issue) => (issue.input === undefined ? `${label} is required.` : range) })
      .int(range)
      .min(min, range)
      .max(max, range),
  );
}

function oneOf(label: string, values: readonly string[]) {
  return z.preprocess(
    blank,
    z.string({ error: `${label} is required.` }).refine((value) => values.includes(value), {
      message: `${label} must be one of ${values.join(", ")}.`,
    }),
  );
}

function splitList(value: unknown): unknown {
  const text = blank(value);
  if (typeof text !== "string") return text;
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** comma/space separated list (or a multi-select), e.g. availability zones */
function optionalList(item: RegExp, message: string) {
  return z.preprocess(splitList, z.array(z.string().regex(item, message)).optional());
}

function requiredList(label: string, item: RegExp, message: string) {
  return z.preprocess(
    splitList,
    z
      .array(z.string().regex(item, message), { error: `${label} is required.` })
      .min(1, `${label} is required.`),
  );
}

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const nameSchema = z.preprocess(
  blank,
  z
    .string({ error: "Cluster name is required." })
    .max(63, "Cluster name must be at most 63 characters.")
    .regex(
      DNS_LABEL,
      "Cluster name must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit.",
    ),
);

const TAG_KEY =
  /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const TAG_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Palette marks a plain tag (no value) with this label value. */
export const PLAIN_TAG_VALUE = "spectro__tag";

export const tagsSchema = z.preprocess(
  (value) => {
    const text = blank(value);
    if (text === undefined) return [];
    return typeof text === "string" ? text.split(/[\s,]+/).filter((part) => part !== "") : text;
  },
  z
    .array(z.string())
    .max(20, "At most 20 tags.")
    .transform((tags, ctx) => {
      const labels: Record<string, string> = {};
      for (const tag of tags) {
        const at = tag.indexOf(":");
        const key = at === -1 ? tag : tag.slice(0, at);
        const value = at === -1 ? PLAIN_TAG_VALUE : tag.slice(at + 1);
        if (!TAG_KEY.test(key) || !TAG_VALUE.test(value)) {
          ctx.addIssue({
            code: "custom",
            message: `Tag "${tag.slice(0, 80)}" is not valid: use \`name\` or \`key:value\` with letters, digits, '-', '_' or '.' (at most 63 each).`,
          });
          return z.NEVER;
        }
        labels[key] = value;
      }
      return labels;
    }),
);

const INSTANCE_TYPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const INSTANCE_MESSAGE = "Instance type must look like a provider machine type, e.g. m5.xlarge.";
const UID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SSH_PUBLIC_KEY =
  /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\n]*)?$/;
const SSH_KEY_MESSAGE =
  "SSH key must be one public key line, e.g. `ssh-ed25519 AAAA… user@host` (never a private key).";
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,254}$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const ZONE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const ZONE_MESSAGE = "Zones are names separated by commas, e.g. us-east-1a, us-east-1b.";
const PATHISH = /^[^\n\r]{1,255}$/;

// ---------------------------------------------------------------------------------------------
// Field builders shared by several providers.

function field<S extends z.ZodType>(spec: FieldSpec<S>): FieldSpec<S> {
  return spec;
}

const CONTROL_PLANE_COUNTS = ["1", "3", "5"] as const;

const controlPlanes = () =>
  field({
    id: "controlPlanes",
    label: "Control-plane nodes",
    kind: "select",
    optional: false,
    initial: "1",
    choices: CONTROL_PLANE_COUNTS.map((count) => ({ value: count, label: count })),
    hint: "An odd number keeps etcd quorum: 1 for a trial, 3 for production.",
    schema: z.preprocess(
      blank,
      z
        .string({ error: "Control-plane nodes is required." })
        .refine((value) => (CONTROL_PLANE_COUNTS as readonly string[]).includes(value), {
          message: "Control-plane nodes must be 1, 3 or 5.",
        })
        .transform(Number),
    ),
  });

const workers = (max = 50) =>
  field({
    id: "workers",
    label: "Worker nodes",
    kind: "number",
    optional: false,
    initial: "2",
    min: 1,
    max,
    schema: wholeNumber("Worker nodes", 1, max),
  });

const instanceType = (placeholder: string, initial?: string) =>
  field({
    id: "instanceType",
    label: "Instance type",
    kind: "text",
    optional: false,
    placeholder,
    initial,
    schema: requiredText("Instance type", {
      pattern: INSTANCE_TYPE,
      message: INSTANCE_MESSAGE,
      max: 64,
    }),
  });

const sshKeyName = (optional: boolean) =>
  field({
    id: "sshKeyName",
    label: "SSH key pair name",
    kind: "text",
    optional,
    placeholder: "my-key",
    hint: "The name of a key pair that already exists in the cloud account's region.",
    schema: optional
      ? optionalText("SSH key pair name", { pattern: KEY_NAME, max: 255 })
      : requiredText("SSH key pair name", { pattern: KEY_NAME, max: 255 }),
  });

const sshPublicKey = (optional: boolean) =>
  field({
    id: "sshKey",
    label: "SSH public key",
    kind: "multiline",
    optional,
    placeholder: "ssh-ed25519 AAAA… user@host",
    schema: optional
      ? optionalText("SSH public key", {
          pattern: SSH_PUBLIC_KEY,
          message: SSH_KEY_MESSAGE,
          max: 4096,
        })
      : requiredText("SSH public key", {
          pattern: SSH_PUBLIC_KEY,
          message: SSH_KEY_MESSAGE,
          max: 4096,
        }),
  });

const zones = (placeholder: string) =>
  field({
    id: "azs",
    label: "Availability zones",
    kind: "text",
    optional: true,
    placeholder,
    schema: optionalList(ZONE, ZONE_MESSAGE),
  });

const plain = (id: string, label: string, placeholder: string, optional = false, max = 255) =>
  field({
    id,
    label,
    kind: "text",
    optional,
    placeholder,
    schema: optional
      ? optionalText(label, { pattern: PATHISH, max })
      : requiredText(label, { pattern: PATHISH, max }),
  });

/** A preset machine size, for providers whose instance type is CPU/memory/disk numbers. */
export const SIZES = {
  small: { cpu: 2, memoryGiB: 4, diskGiB: 60 },
  medium: { cpu: 4, memoryGiB: 8, diskGiB: 80 },
  large: { cpu: 8, memoryGiB: 16, diskGiB: 120 },
  xlarge: { cpu: 16, memoryGiB: 32, diskGiB: 200 },
} as const;
export type SizeName = keyof typeof SIZES;
const SIZE_NAMES = Object.keys(SIZES) as SizeName[];

const size = () =>
  field({
    id: "size",
    label: "Node size",
    kind: "select",
    optional: false,
    initial: "medium",
    choices: SIZE_NAMES.map((name) => {
      const s = SIZES[name];
      return {
        value: name,
        label: `${name}: ${s.cpu} vCPU, ${s.memoryGiB} GiB, ${s.diskGiB} GiB disk`,
      };
    }),
    schema: oneOf("Node size", SIZE_NAMES).transform((name) => SIZES[name as SizeName]),
  });

function pool(name: "cp-pool" | "worker-pool", count: number, controlPlane: boolean) {
  return {
    name,
    size: count,
    labels: [controlPlane ? "control-plane" : "worker"],
    ...(controlPlane ? { isControlPlane: true } : {}),
  };
}

function profiles(values: CommonValues): Array<{ uid: string }> {
  return values.profile ? [{ uid: values.profile }] : [];
}

function metadata(values: CommonValues): CreateBody["metadata"] {
  return { name: values.name, labels: { ...values.tags } };
}

// ---------------------------------------------------------------------------------------------
// The catalogue.

interface Definition<F extends FieldMap> {
  provider: Provider;
  label: string;
  cloudAccount?: CloudAccountKind;
  controlPlanePool: boolean;
  /** virtual clusters may launch without a profile */
  profileOptional?: boolean;
  fields: F;
  /** checks across fields; returns field id → message */
  check?: (values: CommonValues & ValuesOf<F>) => Record<string, string>;
  build: (values: CommonValues & ValuesOf<F>) => CreateBody;
}

function commonFields(def: { cloudAccount?: CloudAccountKind; profileOptional?: boolean }) {
  const fields: FieldSpec[] = [
    field({
      id: "name",
      label: "Cluster name",
      kind: "text",
      optional: false,
      placeholder: "team-dev-1",
      hint: "Lower-case letters, digits and '-'; at most 63 characters; unique in the project.",
      schema: nameSchema,
    }),
  ];
  if (def.cloudAccount) {
    fields.push(
      field({
        id: "account",
        label: "Cloud account",
        kind: "external",
        optional: false,
        source: "account",
        placeholder: "Type to search accounts",
        schema: requiredText("Cloud account", { pattern: UID, message: "Pick a cloud account." }),
      }),
    );
  }
  fields.push(
    field({
      id: "profile",
      label: "Cluster profile",
      kind: "external",
      optional: def.profileOptional === true,
      source: "profile",
      placeholder: "Type to search profiles",
      schema: def.profileOptional
        ? optionalText("Cluster profile", { pattern: UID, message: "Pick a cluster profile." })
        : requiredText("Cluster profile", { pattern: UID, message: "Pick a cluster profile." }),
    }),
  );
  return fields;
}

const tagsField = field({
  id: "tags",
  label: "Tags",
  kind: "text",
  optional: true,
  placeholder: "env:dev team:core",
  hint: "Space or comma separated; `key:value` or a plain `name`.",
  schema: tagsSchema,
});

function define<F extends FieldMap>(def: Definition<F>): ProviderSpec {
  const fields = [...commonFields(def), ...Object.values(def.fields), tagsField];
  const shape: Record<string, z.ZodType> = {};
  for (const f of fields) shape[f.id] = f.schema;
  const schema = z.object(shape);
  return {
    provider: def.provider,
    label: def.label,
    cloudAccount: def.cloudAccount,
    cloudType: def.provider,
    controlPlanePool: def.controlPlanePool,
    fields,
    validate(raw) {
      const input: Record<string, unknown> = {};
      for (const f of fields) input[f.id] = raw[f.id] ?? undefined;
      const parsed = schema.safeParse(input);
      if (!parsed.success) {
        const errors: Record<string, string> = {};
        for (const issue of parsed.error.issues) {
          const key = String(issue.path[0] ?? "name");
          errors[key] ??= issue.message;
        }
        return { ok: false, errors };
      }
      const values = parsed.data as CommonValues & ValuesOf<F>;
      const crossErrors = def.check?.(values) ?? {};
      if (Object.keys(crossErrors).length > 0) return { ok: false, errors: crossErrors };
      return { ok: true, values };
    },
    build: (values) => def.build(values as CommonValues & ValuesOf<F>),
  };
}

const awsRegion = () =>
  field({
    id: "region",
    label: "Region",
    kind: "text",
    optional: false,
    placeholder: "us-east-1",
    schema: requiredText("Region", {
      pattern: /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/,
      message: "Region must be an AWS region code, e.g. us-east-1.",
      max: 32,
    }),
  });

const aws = define({
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
  build: (v) => {
    const cloud = { instanceType: v.instanceType, ...(v.azs ? { azs: v.azs } : {}) };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: { region: v.region, sshKeyName: v.sshKeyName },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const eks = define({
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
  build: (v) => ({
    metadata: metadata(v),
    spec: {
      cloudAccountUid: v.account,
      profiles: profiles(v),
      cloudConfig: {
        region: v.region,
        endpointAccess: {
          public: v.endpointAccess !== "private",
          private: v.endpointAccess !== "public",
        },
        ...(v.sshKeyName ? { sshKeyName: v.sshKeyName } : {}),
      },
      machinepoolconfig: [
        {
          poolConfig: pool("worker-pool", v.workers, false),
          cloudConfig: {
            instanceType: v.instanceType,
            capacityType: "on-demand",
            ...(v.azs ? { azs: v.azs } : {}),
          },
        },
      ],
    },
  }),
});

const azureFields = (instance: string) => ({
  subscriptionId: field({
    id: "subscriptionId",
    label: "Subscription ID",
    kind: "text",
    optional: false,
    placeholder: "00000000-0000-0000-0000-000000000000",
    schema: requiredText("Subscription ID", {
      pattern: UUID,
      message: "Subscription ID must be a UUID, e.g. 8d2c…-….",
      max: 36,
    }),
  }),
  location: field({
    id: "location",
    label: "Region",
    kind: "text",
    optional: false,
    placeholder: "eastus",
    schema: requiredText("Region", {
      pattern: /^[a-z][a-z0-9]{1,39}$/,
      message: "Region must be an Azure location name, e.g. eastus or westeurope.",
      max: 40,
    }),
  }),
  resourceGroup: field({
    id: "resourceGroup",
    label: "Resource group",
    kind: "text",
    optional: false,
    placeholder: "rg-clusters",
    schema: requiredText("Resource group", {
      pattern: /^[-\w.()]{1,89}[-\w()]$/,
      message: "Resource group may hold letters, digits, '-', '_', '.', '(' and ')'.",
      max: 90,
    }),
  }),
  sshKey: sshPublicKey(false),
  instanceType: instanceType(instance, instance),
});

const azure = define({
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
  build: (v) => {
    const cloud = {
      instanceType: v.instanceType,
      osDisk: { diskSizeGB: 60, managedDisk: { storageAccountType: "Premium_LRS" } },
      ...(v.azs ? { azs: v.azs } : {}),
    };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: {
          subscriptionId: v.subscriptionId,
          location: v.location,
          resourceGroup: v.resourceGroup,
          sshKey: v.sshKey,
        },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const aks = define({
  provider: "aks",
  label: "Azure AKS",
  cloudAccount: "azure",
  controlPlanePool: false,
  fields: { ...azureFields("Standard_D2s_v3"), workers: workers(100) },
  // AKS needs one system node pool; the managed control plane has no pool of its own.
  build: (v) => ({
    metadata: metadata(v),
    spec: {
      cloudAccountUid: v.account,
      profiles: profiles(v),
      cloudConfig: {
        subscriptionId: v.subscriptionId,
        location: v.location,
        resourceGroup: v.resourceGroup,
        sshKey: v.sshKey,
      },
      machinepoolconfig: [
        {
          poolConfig: pool("worker-pool", v.workers, false),
          managedPoolConfig: { isSystemNodePool: true, osType: "Linux" },
          cloudConfig: {
            instanceType: v.instanceType,
            isSystemNodePool: true,
            osDisk: { diskSizeGB: 60, osType: "Linux" },
          },
        },
      ],
    },
  }),
});

const gcpFields = (instance: string) => ({
  gcpProject: field({
    id: "gcpProject",
    label: "GCP project ID",
    kind: "text",
    optional: false,
    placeholder: "my-gcp-project",
    schema: requiredText("GCP project ID", {
      pattern: /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
      message:
        "GCP project ID must be 6–30 lower-case letters, digits or '-', starting with a letter.",
      max: 30,
    }),
  }),
  region: field({
    id: "region",
    label: "Region",
    kind: "text",
    optional: false,
    placeholder: "us-central1",
    schema: requiredText("Region", {
      pattern: /^[a-z]+-[a-z]+\d+$/,
      message: "Region must be a GCP region, e.g. us-central1.",
      max: 32,
    }),
  }),
  instanceType: instanceType(instance, instance),
});

const gcp = define({
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
  build: (v) => {
    const cloud = { instanceType: v.instanceType, ...(v.azs ? { azs: v.azs } : {}) };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: {
          project: v.gcpProject,
          region: v.region,
          ...(v.network ? { network: v.network } : {}),
        },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const gke = define({
  provider: "gke",
  label: "Google GKE",
  cloudAccount: "gcp",
  controlPlanePool: false,
  fields: { ...gcpFields("e2-standard-4"), workers: workers(100) },
  build: (v) => ({
    metadata: metadata(v),
    spec: {
      cloudAccountUid: v.account,
      profiles: profiles(v),
      cloudConfig: { project: v.gcpProject, region: v.region },
      machinepoolconfig: [
        {
          poolConfig: pool("worker-pool", v.workers, false),
          cloudConfig: { instanceType: v.instanceType },
        },
      ],
    },
  }),
});

const maas = define({
  provider: "maas",
  label: "Canonical MAAS",
  cloudAccount: "maas",
  controlPlanePool: true,
  fields: {
    domain: field({
      id: "domain",
      label: "MAAS domain",
      kind: "text",
      optional: false,
      placeholder: "maas.example.com",
      schema: requiredText("MAAS domain", {
        pattern:
          /^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/,
        message: "MAAS domain must be a DNS name, e.g. maas.example.com.",
        max: 253,
      }),
    }),
    resourcePool: plain("resourcePool", "Resource pool", "default"),
    size: size(),
    sshKey: sshPublicKey(true),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) => {
    const cloud = {
      instanceType: {
        minCPU: v.size.cpu,
        minMemInMB: v.size.memoryGiB * 1024,
        minDiskSizeInGB: v.size.diskGiB,
      },
      resourcePool: v.resourcePool,
    };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: { domain: v.domain, ...(v.sshKey ? { sshKeys: [v.sshKey] } : {}) },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const vsphere = define({
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
  build: (v) => {
    const cloud = {
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
    };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: {
          sshKeys: [v.sshKey],
          staticIp: false,
          placement: { datacenter: v.datacenter, folder: v.folder },
        },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const openstack = define({
  provider: "openstack",
  label: "OpenStack",
  cloudAccount: "openstack",
  controlPlanePool: true,
  fields: {
    region: plain("region", "Region", "RegionOne", false, 63),
    osProject: plain("osProject", "OpenStack project", "admin", false, 63),
    osDomain: plain("osDomain", "OpenStack domain", "Default", false, 63),
    flavor: field({
      id: "flavor",
      label: "Flavor",
      kind: "text",
      optional: false,
      placeholder: "m1.large",
      initial: "m1.large",
      schema: requiredText("Flavor", {
        pattern: INSTANCE_TYPE,
        message: "Flavor must be an OpenStack flavor name, e.g. m1.large.",
        max: 64,
      }),
    }),
    sshKeyName: sshKeyName(false),
    azs: zones("nova"),
    controlPlanes: controlPlanes(),
    workers: workers(),
  },
  build: (v) => {
    const cloud = { flavorConfig: { name: v.flavor }, ...(v.azs ? { azs: v.azs } : {}) };
    return {
      metadata: metadata(v),
      spec: {
        cloudAccountUid: v.account,
        profiles: profiles(v),
        cloudConfig: {
          region: v.region,
          project: { name: v.osProject },
          domain: { name: v.osDomain },
          sshKeyName: v.sshKeyName,
        },
        machinepoolconfig: [
          { poolConfig: pool("cp-pool", v.controlPlanes, true), cloudConfig: cloud },
          { poolConfig: pool("worker-pool", v.workers, false), cloudConfig: cloud },
        ],
      },
    };
  },
});

const edgeNative = define({
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
    vip: field({
      id: "vip",
      label: "Cluster VIP",
      kind: "text",
      optional: true,
      placeholder: "10.0.0.100",
      hint: "A free IP for the API server; required with more than one host.",
      schema: optionalText("Cluster VIP", {
        pattern: IPV4,
        message: "Cluster VIP must be an IPv4 address, e.g. 10.0.0.100.",
        max: 15,
      }),
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
          ...(v.vip ? { controlPlaneEndpoint: { host: v.vip, type: "IP" } } : {}),
          sshKeys: v.sshKey ? [v.sshKey] : [],
        },
        machinepoolconfig: pools,
      },
    };
  },
});

const virtual = define({
  provider: "virtual",
  label: "Virtual cluster",
  controlPlanePool: false,
  profileOptional: true,
  fields: {
    clusterGroup: field({
      id: "clusterGroup",
      label: "Cluster group",
      kind: "external",
      optional: false,
      source: "cluster_group",
      placeholder: "Type to search cluster groups",
      schema: requiredText("Cluster group", { pattern: UID, message: "Pick a cluster group." }),
    }),
    hostCluster: field({
      id: "hostCluster",
      label: "Host cluster",
      kind: "external",
      optional: true,
      source: "host_cluster",
      placeholder: "Any host of the group",
      schema: optionalText("Host cluster", { pattern: UID, message: "Pick a host cluster." }),
    }),
    cpu: field({
      id: "cpu",
      label: "CPU limit (cores)",
      kind: "number",
      optional: false,
      initial: "4",
      min: 1,
      max: 64,
      schema: wholeNumber("CPU limit", 1, 64),
    }),
    memoryGiB: field({
      id: "memoryGiB",
      label: "Memory limit (GiB)",
      kind: "number",
      optional: false,
      initial: "8",
      min: 1,
      max: 512,
      schema: wholeNumber("Memory limit", 1, 512),
    }),
    storageGiB: field({
      id: "storageGiB",
      label: "Storage limit (GiB)",
      kind: "number",
      optional: false,
      initial: "20",
      min: 1,
      max: 2048,
      schema: wholeNumber("Storage limit", 1, 2048),
    }),
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

export const PROVIDER_SPECS: Record<Provider, ProviderSpec> = {
  azure,
  aks,
  aws,
  eks,
  gcp,
  gke,
  maas,
  vsphere,
  openstack,
  "edge-native": edgeNative,
  virtual,
};

export function providerSpec(provider: Provider): ProviderSpec {
  return PROVIDER_SPECS[provider];
}

/** The providers in the order the form lists them. */
export function providerChoices(): Choice[] {
  return PROVIDERS.map((provider) => ({ value: provider, label: PROVIDER_SPECS[provider].label }));
}

/** Validates raw answers for `provider` and, when valid, builds the create body. */
export function buildCreateBody(
  provider: Provider,
  raw: RawValues,
):
  | { ok: true; body: CreateBody; values: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> } {
  const spec = PROVIDER_SPECS[provider];
  const result = spec.validate(raw);
  if (!result.ok) return result;
  return { ok: true, body: spec.build(result.values), values: result.values };
}

const SECRET_KEY = /key|secret|password|passwd|token|credential|certificate|private/i;

/**
 * A copy of a create body safe for the audit log: any property whose name looks like it could
 * carry a secret is dropped (SSH public keys included, to be safe).
 */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactBody);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_KEY.test(key)) continue;
      out[key] = redactBody(item);
    }
    return out;
  }
  return value;
}
