/**
 * The launch catalogue: for each of Palette's eleven providers, what the launch form asks, how
 * each answer is validated (zod, with messages written for the person filling the form), and a
 * pure function from validated answers to the body of `POST /v1/spectroclusters/{provider}`.
 * The Slack modal and the console prompts both read this table, so they ask the same questions
 * and give the same answers to bad input.
 */

export { buildCreateBody, PROVIDER_SPECS, providerChoices, providerSpec } from "./catalogue.ts";
export { SIZES, type SizeName } from "./fields.ts";
export { redactBody } from "./redact.ts";
export { DNS_LABEL, nameSchema, tagsSchema } from "./schemas.ts";
export type {
  Choice,
  CommonValues,
  CreateBody,
  FieldKind,
  FieldSpec,
  OptionSource,
  ProviderSpec,
  RawValues,
  Validation,
} from "./types.ts";
