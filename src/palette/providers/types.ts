import type { z } from "zod";
import type { CloudAccountKind, Provider } from "../providers-list.ts";

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

export type FieldMap = Record<string, FieldSpec>;
export type ValuesOf<F extends FieldMap> = { [K in keyof F]: z.output<F[K]["schema"]> };

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
