import { z } from "zod";
import type { CloudAccountKind } from "../providers-list.ts";
import {
  blank,
  nameSchema,
  oneOf,
  optionalList,
  type TextRule,
  type TextSchema,
  tagsSchema,
  text,
  wholeNumber,
} from "./schemas.ts";
import type { FieldSpec, OptionSource } from "./types.ts";

// Field builders shared by several providers, and the fields every form has.

export const INSTANCE_TYPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const INSTANCE_MESSAGE = "Instance type must look like a provider machine type, e.g. m5.xlarge.";
export const UID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const SSH_PUBLIC_KEY =
  /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,3}( [^\n]*)?$/;
const SSH_KEY_MESSAGE =
  "SSH key must be one public key line, e.g. `ssh-ed25519 AAAA… user@host` (never a private key).";
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,254}$/;
const ZONE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const ZONE_MESSAGE = "Zones are names separated by commas, e.g. us-east-1a, us-east-1b.";
const PATHISH = /^[^\n\r]{1,255}$/;

export function field<S extends z.ZodType>(spec: FieldSpec<S>): FieldSpec<S> {
  return spec;
}

interface TextFieldOptions<Optional extends boolean> extends TextRule {
  id: string;
  label: string;
  placeholder: string;
  /** required unless said */
  optional?: Optional;
  initial?: string;
  hint?: string;
  multiline?: boolean;
}

/** A free-text field whose messages name it by its label. */
export function textField<Optional extends boolean = false>(
  options: TextFieldOptions<Optional>,
): FieldSpec<TextSchema<Optional>> {
  const { id, label, placeholder, initial, hint, pattern, message, max } = options;
  const optional = (options.optional ?? false) as Optional;
  return {
    id,
    label,
    kind: options.multiline ? "multiline" : "text",
    optional,
    placeholder,
    ...(initial === undefined ? {} : { initial }),
    ...(hint === undefined ? {} : { hint }),
    schema: text(label, optional, { pattern, message, max }),
  };
}

/** A field whose answer is a uid picked from a list Palette serves. */
export function pickerField<Optional extends boolean = false>(options: {
  id: string;
  label: string;
  source: OptionSource;
  placeholder: string;
  /** what to say when the answer is not a uid */
  message: string;
  optional?: Optional;
}): FieldSpec<TextSchema<Optional>> {
  const { id, label, source, placeholder, message } = options;
  const optional = (options.optional ?? false) as Optional;
  return {
    id,
    label,
    kind: "external",
    optional,
    source,
    placeholder,
    schema: text(label, optional, { pattern: UID, message }),
  };
}

/** A required count from 1 to `max`; `name` is how the messages call it. */
export function numberField(id: string, label: string, name: string, initial: string, max: number) {
  return field({
    id,
    label,
    kind: "number",
    optional: false,
    initial,
    min: 1,
    max,
    schema: wholeNumber(name, 1, max),
  });
}

const CONTROL_PLANE_COUNTS = ["1", "3", "5"] as const;

export const controlPlanes = () =>
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

export const workers = (max = 50) =>
  numberField("workers", "Worker nodes", "Worker nodes", "2", max);

export const instanceType = (placeholder: string, initial?: string) =>
  textField({
    id: "instanceType",
    label: "Instance type",
    placeholder,
    initial,
    pattern: INSTANCE_TYPE,
    message: INSTANCE_MESSAGE,
    max: 64,
  });

export const sshKeyName = <Optional extends boolean>(optional: Optional) =>
  textField({
    id: "sshKeyName",
    label: "SSH key pair name",
    optional,
    placeholder: "my-key",
    hint: "The name of a key pair that already exists in the cloud account's region.",
    pattern: KEY_NAME,
    max: 255,
  });

export const sshPublicKey = <Optional extends boolean>(optional: Optional) =>
  textField({
    id: "sshKey",
    label: "SSH public key",
    multiline: true,
    optional,
    placeholder: "ssh-ed25519 AAAA… user@host",
    pattern: SSH_PUBLIC_KEY,
    message: SSH_KEY_MESSAGE,
    max: 4096,
  });

export const zones = (placeholder: string) =>
  field({
    id: "azs",
    label: "Availability zones",
    kind: "text",
    optional: true,
    placeholder,
    schema: optionalList(ZONE, ZONE_MESSAGE),
  });

/** A name or path in the provider's own inventory (datacenter, folder, network, ...). */
export const plain = <Optional extends boolean = false>(
  id: string,
  label: string,
  placeholder: string,
  optional?: Optional,
  max = 255,
) => textField({ id, label, placeholder, optional, pattern: PATHISH, max });

/** A preset machine size, for providers whose instance type is CPU/memory/disk numbers. */
export const SIZES = {
  small: { cpu: 2, memoryGiB: 4, diskGiB: 60 },
  medium: { cpu: 4, memoryGiB: 8, diskGiB: 80 },
  large: { cpu: 8, memoryGiB: 16, diskGiB: 120 },
  xlarge: { cpu: 16, memoryGiB: 32, diskGiB: 200 },
} as const;
export type SizeName = keyof typeof SIZES;
const SIZE_NAMES = Object.keys(SIZES) as SizeName[];

export const size = () =>
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

/** The fields every form opens with: name, then cloud account (if any) and profile. */
export function commonFields(def: {
  cloudAccount?: CloudAccountKind;
  profileOptional?: boolean;
}): FieldSpec[] {
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
      pickerField({
        id: "account",
        label: "Cloud account",
        source: "account",
        placeholder: "Type to search accounts",
        message: "Pick a cloud account.",
      }),
    );
  }
  fields.push(
    pickerField({
      id: "profile",
      label: "Cluster profile",
      source: "profile",
      placeholder: "Type to search profiles",
      message: "Pick a cluster profile.",
      optional: def.profileOptional === true,
    }),
  );
  return fields;
}

/** The field every form closes with. */
export const tagsField = field({
  id: "tags",
  label: "Tags",
  kind: "text",
  optional: true,
  placeholder: "env:dev team:core",
  hint: "Space or comma separated; `key:value` or a plain `name`.",
  schema: tagsSchema,
});
