import { z } from "zod";
import { muteUntil } from "../model/hold-time.ts";
import { MUTE_FIELDS, MUTE_LENGTHS, MUTE_REASON_MAX } from "../views/mute-modal.ts";

/**
 * The mute modal's two ends at the edge: what the modal carries (`private_metadata`), and the
 * submission's `view.state.values` read and checked, each problem under its own field.
 */

const metadataSchema = z.object({
  ch: z.string().min(1).max(64),
  c: z.string().min(1).max(64),
  p: z.string().max(64).optional(),
});
export type MuteMetadata = z.infer<typeof metadataSchema>;

export const encodeMuteMetadata = (metadata: MuteMetadata): string => JSON.stringify(metadata);

export function decodeMuteMetadata(raw: unknown): MuteMetadata | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    const parsed = metadataSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const field = <T extends z.ZodTypeAny>(id: string, element: T) =>
  z
    .object({ [id]: element })
    .partial()
    .optional();

const valuesSchema = z.object({
  [MUTE_FIELDS.length]: field(
    MUTE_FIELDS.length,
    z.object({ selected_option: z.object({ value: z.string() }).nullish() }),
  ),
  [MUTE_FIELDS.until]: field(MUTE_FIELDS.until, z.object({ selected_date: z.string().nullish() })),
  [MUTE_FIELDS.reason]: field(MUTE_FIELDS.reason, z.object({ value: z.string().nullish() })),
});

export type MuteForm =
  | { ok: true; untilMs: number; reason?: string }
  | { ok: false; errors: Record<string, string> };

/** The submission's values → the mute's end and reason, or errors keyed by block id. */
export function readMuteForm(values: unknown, nowMs: number): MuteForm {
  const parsed = valuesSchema.safeParse(values);
  if (!parsed.success) {
    return {
      ok: false,
      errors: { [MUTE_FIELDS.length]: "The form came back unreadable; try again." },
    };
  }
  const state = parsed.data as Record<string, Record<string, Record<string, unknown>> | undefined>;
  const lengthValue = (
    state[MUTE_FIELDS.length]?.[MUTE_FIELDS.length]?.selected_option as
      | { value: string }
      | null
      | undefined
  )?.value;
  const date = state[MUTE_FIELDS.until]?.[MUTE_FIELDS.until]?.selected_date as
    | string
    | null
    | undefined;
  const rawReason = state[MUTE_FIELDS.reason]?.[MUTE_FIELDS.reason]?.value as
    | string
    | null
    | undefined;
  const length = MUTE_LENGTHS.find((choice) => choice === lengthValue);
  if (!length) return { ok: false, errors: { [MUTE_FIELDS.length]: "Pick how long." } };
  const reason = (rawReason ?? "").replace(/\s+/g, " ").trim();
  if (reason.length > MUTE_REASON_MAX) {
    return {
      ok: false,
      errors: { [MUTE_FIELDS.reason]: `At most ${MUTE_REASON_MAX} characters.` },
    };
  }
  if (length === "until" && !date) {
    return {
      ok: false,
      errors: { [MUTE_FIELDS.until]: 'Pick the day the mute ends (or choose "1 day").' },
    };
  }
  const end = muteUntil(
    length === "until" ? { until: date! } : { days: length === "7d" ? 7 : 1 },
    nowMs,
  );
  if (!end.ok) {
    return {
      ok: false,
      errors: { [length === "until" ? MUTE_FIELDS.until : MUTE_FIELDS.length]: end.problem },
    };
  }
  return { ok: true, untilMs: end.untilMs, ...(reason ? { reason } : {}) };
}
