import { z } from "zod";
import type { CloudAccountKind, Provider } from "../providers-list.ts";
import { commonFields, tagsField } from "./fields.ts";
import type { CommonValues, CreateBody, FieldMap, ProviderSpec, ValuesOf } from "./types.ts";

export interface Definition<F extends FieldMap> {
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

/** A provider's form: the common fields around its own, one zod object over them all. */
export function define<F extends FieldMap>(def: Definition<F>): ProviderSpec {
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
