import type { ViewOutput } from "@slack/bolt";
import { z } from "zod";
import {
  emptyFormState,
  type FormState,
  type LaunchMetadata,
  PROJECT_FIELD,
  type ProjectChoice,
} from "../views/launch-modal.ts";

/**
 * Reading the launch modal back: its private_metadata, the values typed so far and the project
 * choices it was opened with. Everything Slack sends is validated here; views/launch-modal.ts
 * only builds the modal.
 */

const launchMetadataSchema: z.ZodType<LaunchMetadata> = z.object({
  channel: z.string(),
  requester: z.string(),
  project: z.string().optional(),
  provider: z.string().optional(),
});

export function decodeLaunchMetadata(text: string | undefined): LaunchMetadata | undefined {
  try {
    const parsed = launchMetadataSchema.safeParse(JSON.parse(text ?? ""));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const optionSchema = z.object({
  value: z.string(),
  text: z.object({ text: z.string() }).passthrough(),
});

/** `view.state.values` as Slack sends it (block_id → action_id → element state) */
export const stateValuesSchema = z.record(
  z.string(),
  z.record(
    z.string(),
    z
      .object({
        type: z.string().optional(),
        value: z.string().nullish(),
        selected_option: optionSchema.nullish(),
        selected_options: z.array(optionSchema).nullish(),
      })
      .passthrough(),
  ),
);
export type StateValues = z.infer<typeof stateValuesSchema>;

/** Reads every input of the view: block_id → value (text, option value, or option values). */
export function readFormState(values: StateValues | undefined): FormState {
  const state = emptyFormState();
  for (const [blockId, actions] of Object.entries(values ?? {})) {
    const element = Object.values(actions)[0];
    if (!element) continue;
    if (element.selected_options) {
      state.raw[blockId] = element.selected_options.map((o) => o.value);
      state.selected[blockId] = element.selected_options.map((o) => ({
        value: o.value,
        text: o.text.text,
      }));
    } else if (element.selected_option) {
      state.raw[blockId] = element.selected_option.value;
      state.selected[blockId] = [
        { value: element.selected_option.value, text: element.selected_option.text.text },
      ];
    } else {
      state.raw[blockId] = element.value ?? undefined;
    }
  }
  return state;
}

const projectBlockSchema = z.object({
  block_id: z.literal(PROJECT_FIELD),
  element: z.object({
    type: z.string(),
    options: z
      .array(z.object({ value: z.string(), text: z.object({ text: z.string() }) }))
      .optional(),
  }),
});

/**
 * The project choices the modal was opened with, read back from its own project block, so a
 * provider change rebuilds the form without asking Palette again.
 */
export function projectsInView(blocks: unknown): ProjectChoice[] {
  if (!Array.isArray(blocks)) return [];
  for (const block of blocks) {
    const parsed = projectBlockSchema.safeParse(block);
    if (!parsed.success) continue;
    if (parsed.data.element.type !== "static_select") return [];
    return (parsed.data.element.options ?? []).map((o) => {
      const suffix = ` (${o.value})`;
      const name = o.text.text.endsWith(suffix) ? o.text.text.slice(0, -suffix.length) : undefined;
      return { uid: o.value, name };
    });
  }
  return [];
}

/**
 * The metadata and the typed values of a launch modal, as a listener receives it. Metadata that
 * did not survive (a modal of an older version) falls back to the user's own DM as the channel.
 */
export function readLaunchView(
  view: Pick<ViewOutput, "private_metadata" | "state">,
  userId: string,
): { metadata: LaunchMetadata; state: FormState } {
  const values = stateValuesSchema.safeParse(view.state?.values ?? {});
  return {
    metadata: decodeLaunchMetadata(view.private_metadata) ?? { channel: userId, requester: userId },
    state: readFormState(values.success ? values.data : {}),
  };
}
