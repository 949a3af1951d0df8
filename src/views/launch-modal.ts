import type { InputBlock, KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import {
  type FieldSpec,
  providerChoices,
  providerSpec,
  type RawValues,
} from "../palette/providers/index.ts";
import { isProvider, type Provider } from "../palette/providers-list.ts";
import { clampText } from "./limits.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

/**
 * The launch modal, as pure data. Step 1 asks project and provider; picking a provider
 * (`dispatch_action`) swaps in step 2, the provider's own form, rebuilt from what was already
 * typed so nothing is lost. Every input's block_id and action_id is the field id, which is also
 * the key of `response_action: errors`.
 */

export const LAUNCH_CALLBACK_ID = "palette_launch";
export const PROJECT_FIELD = "project";
export const PROVIDER_FIELD = "provider";

/** Slack modal limits */
export const MODAL_LIMITS = {
  blocks: 100,
  title: 24,
  submit: 24,
  privateMetadata: 3000,
  label: 2000,
  hint: 2000,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  options: 100,
} as const;

/** What the modal carries between steps in its private_metadata (JSON). */
export interface LaunchMetadata {
  channel: string;
  requester: string;
  project?: string;
  provider?: string;
}

export interface Selected {
  value: string;
  text: string;
}

/** What the user has entered so far: raw values for validation, option labels for redisplay. */
export interface FormState {
  raw: RawValues;
  selected: Record<string, Selected[]>;
}

export function emptyFormState(): FormState {
  return { raw: {}, selected: {} };
}

export interface ProjectChoice {
  uid: string;
  name?: string;
}

export interface LaunchViewInput {
  metadata: LaunchMetadata;
  /** PALETTE_PROJECTS (with names when known); empty = the select loads projects as you type */
  projects: ProjectChoice[];
  /** undefined = step 1 */
  provider?: Provider;
  state?: FormState;
}

const plain = (text: string, max: number) => ({
  type: "plain_text" as const,
  text: clampText(text, max),
});

export function option(value: string, text: string): PlainTextOption {
  return {
    text: plain(text || value, MODAL_LIMITS.optionText),
    value: value.slice(0, MODAL_LIMITS.optionValue),
  };
}

function projectBlock(input: LaunchViewInput, state: FormState): InputBlock {
  const chosen = state.selected[PROJECT_FIELD]?.[0];
  const current =
    typeof state.raw[PROJECT_FIELD] === "string"
      ? state.raw[PROJECT_FIELD]
      : input.metadata.project;
  if (input.projects.length > 0) {
    const options = input.projects
      .slice(0, MODAL_LIMITS.options)
      .map((p) => option(p.uid, p.name ? `${p.name} (${p.uid})` : p.uid));
    const initial =
      options.find((o) => o.value === current) ?? (options.length === 1 ? options[0] : undefined);
    return {
      type: "input",
      block_id: PROJECT_FIELD,
      label: plain("Project", MODAL_LIMITS.label),
      element: {
        type: "static_select",
        action_id: PROJECT_FIELD,
        placeholder: plain("Pick a project", MODAL_LIMITS.placeholder),
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
    };
  }
  return {
    type: "input",
    block_id: PROJECT_FIELD,
    label: plain("Project", MODAL_LIMITS.label),
    element: {
      type: "external_select",
      action_id: PROJECT_FIELD,
      min_query_length: 0,
      placeholder: plain("Type to search projects", MODAL_LIMITS.placeholder),
      ...(chosen ? { initial_option: option(chosen.value, chosen.text) } : {}),
    },
  };
}

function providerBlock(provider: Provider | undefined): InputBlock {
  const options = providerChoices().map((c) => option(c.value, c.label));
  const initial = provider ? options.find((o) => o.value === provider) : undefined;
  return {
    type: "input",
    block_id: PROVIDER_FIELD,
    dispatch_action: true,
    label: plain("Provider", MODAL_LIMITS.label),
    element: {
      type: "static_select",
      action_id: PROVIDER_FIELD,
      placeholder: plain("Where should it run?", MODAL_LIMITS.placeholder),
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

function text(value: string | string[] | null | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.join(", ");
  return undefined;
}

/** One form field as an input block, pre-filled from what was typed (or the field default). */
export function fieldBlock(field: FieldSpec, state: FormState): InputBlock {
  const typed = text(state.raw[field.id]);
  const value = typed ?? field.initial;
  const selected = state.selected[field.id] ?? [];
  const placeholder = field.placeholder
    ? plain(field.placeholder, MODAL_LIMITS.placeholder)
    : undefined;
  const base = {
    type: "input" as const,
    block_id: field.id,
    optional: field.optional,
    label: plain(field.label, MODAL_LIMITS.label),
    ...(field.hint ? { hint: plain(field.hint, MODAL_LIMITS.hint) } : {}),
  };
  switch (field.kind) {
    case "text":
    case "multiline":
      return {
        ...base,
        element: {
          type: "plain_text_input",
          action_id: field.id,
          multiline: field.kind === "multiline",
          ...(placeholder ? { placeholder } : {}),
          ...(value !== undefined ? { initial_value: value } : {}),
        },
      };
    case "number":
      return {
        ...base,
        element: {
          type: "number_input",
          action_id: field.id,
          is_decimal_allowed: false,
          ...(field.min !== undefined ? { min_value: String(field.min) } : {}),
          ...(field.max !== undefined ? { max_value: String(field.max) } : {}),
          ...(placeholder ? { placeholder } : {}),
          ...(value !== undefined ? { initial_value: value } : {}),
        },
      };
    case "select": {
      const options = (field.choices ?? []).map((c) => option(c.value, c.label));
      const initial = options.find((o) => o.value === value);
      return {
        ...base,
        element: {
          type: "static_select",
          action_id: field.id,
          options,
          ...(placeholder ? { placeholder } : {}),
          ...(initial ? { initial_option: initial } : {}),
        },
      };
    }
    case "external":
      return {
        ...base,
        element: {
          type: "external_select",
          action_id: field.id,
          min_query_length: 0,
          ...(placeholder ? { placeholder } : {}),
          ...(selected[0] ? { initial_option: option(selected[0].value, selected[0].text) } : {}),
        },
      };
    case "multi_external":
      return {
        ...base,
        element: {
          type: "multi_external_select",
          action_id: field.id,
          min_query_length: 0,
          ...(placeholder ? { placeholder } : {}),
          ...(selected.length > 0
            ? { initial_options: selected.map((s) => option(s.value, s.text)) }
            : {}),
        },
      };
  }
}

/** Step 1 (no provider yet) or step 2 (the provider's form). */
export function launchView(input: LaunchViewInput): ModalView {
  const state = input.state ?? emptyFormState();
  const provider = input.provider;
  const metadata: LaunchMetadata = {
    ...input.metadata,
    ...(provider ? { provider } : {}),
    ...(typeof state.raw[PROJECT_FIELD] === "string"
      ? { project: state.raw[PROJECT_FIELD] as string }
      : {}),
  };
  const blocks: KnownBlock[] = [projectBlock(input, state), providerBlock(provider)];
  if (!provider) {
    blocks.push({
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: "Pick a provider and its form appears here. Clusters are created in Palette and followed in this channel.",
        },
      ],
    });
  } else {
    const spec = providerSpec(provider);
    blocks.push(
      { type: "divider" },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: clampText(
              `*${escapeMrkdwn(spec.label)}*${spec.cloudAccount ? ` · ${escapeMrkdwn(spec.cloudAccount)} cloud account` : ""} · profiles of type \`${spec.cloudType}\``,
              3000,
            ),
          },
        ],
      },
      ...spec.fields.map((field) => fieldBlock(field, state)),
    );
  }
  return {
    type: "modal",
    callback_id: LAUNCH_CALLBACK_ID,
    title: plain("Launch cluster", MODAL_LIMITS.title),
    submit: plain(provider ? "Launch" : "Next", MODAL_LIMITS.submit),
    close: plain("Cancel", MODAL_LIMITS.submit),
    private_metadata: JSON.stringify(metadata).slice(0, MODAL_LIMITS.privateMetadata),
    blocks: blocks.slice(0, MODAL_LIMITS.blocks),
  };
}

/** A modal that only says something (a refusal after submit, a slow Palette). */
/** A one-message modal; `message` is plain text (it may carry Palette's words) and is escaped. */
export function launchNoticeView(title: string, message: string): ModalView {
  return {
    type: "modal",
    callback_id: `${LAUNCH_CALLBACK_ID}_notice`,
    title: plain(title, MODAL_LIMITS.title),
    close: plain("Close", MODAL_LIMITS.submit),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: clampText(escapeMrkdwn(message), 3000) } },
    ],
  };
}

/** the provider picked in a state, if it is one */
export function providerOf(state: FormState, metadata?: LaunchMetadata): Provider | undefined {
  const value = state.raw[PROVIDER_FIELD];
  if (typeof value === "string" && isProvider(value)) return value;
  return metadata?.provider && isProvider(metadata.provider) ? metadata.provider : undefined;
}
